// CPU seconds used by each process group of the benchmark over a window (Linux /proc; elsewhere
// an empty result): shows where the machine's time goes during a load, e.g. how much the
// database takes next to the service.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

function label(pid) {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  if (args.startsWith('postgres:') || /\/postgres -D /.test(args)) return 'postgres';
  if (args.includes('apps/api/main.js')) return 'api';
  if (args.includes('apps/worker/main.js')) return 'worker';
  if (args.includes('bench/run.mjs')) return 'load generator';
  if (args.includes('bench/bare-server.mjs')) return 'bare';
  if (args.includes('bench/')) return 'bench peers';
  return null;
}

// Only this benchmark's own process tree counts (other work on the machine is not ours).
function snapshot() {
  const totals = new Map();
  if (!existsSync('/proc')) return totals;
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }); // utime + stime
    } catch {
      // the process ended meanwhile
    }
  }
  const ours = (pid) => {
    for (let at = pid, hops = 0; at > 1 && hops < 10; at = stats.get(at)?.ppid ?? 0, hops++) if (at === process.pid) return true;
    return false;
  };
  for (const [pid, { ticks }] of stats) {
    if (!ours(pid)) continue;
    try {
      const name = label(pid);
      if (name) totals.set(`${name}:${pid}`, ticks);
    } catch {
      // the process ended meanwhile
    }
  }
  return totals;
}

// The whole machine's CPU ticks (/proc/stat): busy (user, nice, system, irq, softirq) and steal
// (taken by the hypervisor from this virtual machine).
function machine() {
  if (!existsSync('/proc/stat')) return null;
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, steal };
}

// Starts a window; the returned function ends it and answers CPU seconds per group, and what the
// rest of the machine (work that is not this benchmark's) used meanwhile.
export function cpuWindow() {
  const before = snapshot();
  const machineBefore = machine();
  const started = process.hrtime.bigint();
  return () => {
    const after = snapshot();
    const machineAfter = machine();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const groups = {};
    for (const [key, ticks] of after) {
      const name = key.slice(0, key.indexOf(':'));
      groups[name] = (groups[name] ?? 0) + (ticks - (before.get(key) ?? 0)) / TICKS;
    }
    const cpu_seconds = Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, Number(v.toFixed(2))]));
    if (!machineBefore || !machineAfter) return { wall_seconds: Number(seconds.toFixed(2)), cpu_seconds };
    const busy = (machineAfter.busy - machineBefore.busy) / TICKS;
    const ours = Object.values(groups).reduce((sum, v) => sum + v, 0);
    return {
      wall_seconds: Number(seconds.toFixed(2)),
      cpu_seconds,
      machine_busy_cpu_seconds: Number(busy.toFixed(2)),
      other_work_cpu_seconds: Number(Math.max(0, busy - ours).toFixed(2)),
      steal_cpu_seconds: Number(((machineAfter.steal - machineBefore.steal) / TICKS).toFixed(2)),
    };
  };
}
