import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// What postmaster.pid on a data directory says, checked against the process table. After kill -9
// the old postmaster may be a zombie (killed, never reaped: a parent that does not wait, as PID 1
// of a container without an init), an orphan still running, or still shutting down.

export type Lock =
  | { kind: 'none' }
  // The file names a process that is not a live postgres on this directory: a zombie, or a pid reused.
  | { kind: 'stale'; pid: number; zombie: boolean }
  | { kind: 'running'; pid: number; orphan: boolean; stopping: boolean };

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ")".
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
    return { state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

// Whether a pid names any process, a zombie included (kill(pid, 0) succeeds on zombies).
export const pidExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const isZombie = (pid: number): boolean => ['Z', 'X'].includes(procStat(pid)?.state ?? '');

// A process that still runs: exists and is not a zombie.
export const isAlive = (pid: number): boolean => pidExists(pid) && !isZombie(pid);

export function inspectLock(dataDir: string): Lock {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { kind: 'none' };
  let lines: string[];
  try {
    lines = readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return { kind: 'none' }; // removed as we looked
  }
  const pid = Number(lines[0]);
  // Gone: PostgreSQL itself treats the file as stale.
  if (!Number.isInteger(pid) || pid <= 0 || !pidExists(pid)) return { kind: 'none' };
  if (isZombie(pid)) return { kind: 'stale', pid, zombie: true };
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return { kind: 'none' }; // no /proc (not Linux) or exited as we looked: let PostgreSQL decide
  }
  if (!command.includes('postgres') || !command.includes(dataDir)) return { kind: 'stale', pid, zombie: false };
  // Our servers are children of a node process; after kill -9 of that process the postmaster is
  // re-parented to init or to another reaper.
  const ppid = procStat(pid)?.ppid ?? 0;
  let parent = '';
  try {
    if (ppid > 1 && isAlive(ppid)) parent = readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0')[0];
  } catch {
    // the parent exited as we looked: an orphan
  }
  // Line 8 is the postmaster's status (starting, stopping, ready, standby).
  return { kind: 'running', pid, orphan: !/(^|\/)node$/.test(parent), stopping: lines[7]?.trim() === 'stopping' };
}

// Only for a file whose process is a zombie or another program: the server that wrote it is dead.
// Its socket's lock file (which PostgreSQL checks the same way) goes too when it names that pid.
// Backends it left that still hold its shared memory are caught by PostgreSQL's own check of the
// segment (keyed by the data directory), which the start retries past.
export function removeStaleLock(dataDir: string, socketLock: string, pid: number): void {
  try {
    if (Number(readFileSync(socketLock, 'utf8').split('\n')[0]) === pid) rmSync(socketLock, { force: true });
  } catch {
    // no socket lock file
  }
  rmSync(join(dataDir, 'postmaster.pid'), { force: true });
}
