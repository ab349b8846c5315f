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

// Starts a window; the returned function ends it and answers CPU seconds per group.
export function cpuWindow() {
  const before = snapshot();
  const started = process.hrtime.bigint();
  return () => {
    const after = snapshot();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const groups = {};
    for (const [key, ticks] of after) {
      const name = key.slice(0, key.indexOf(':'));
      groups[name] = (groups[name] ?? 0) + (ticks - (before.get(key) ?? 0)) / TICKS;
    }
    return { wall_seconds: Number(seconds.toFixed(2)), cpu_seconds: Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, Number(v.toFixed(2))])) };
  };
}
