import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

// Gives the whole process the CPU niceness `nice` and returns how many threads it lowered. On
// Linux the nice value belongs to each thread, and os.setPriority changes only the calling one;
// V8's helper threads (parallel garbage collection, compilation) start before any of our code
// runs and would keep the default priority, so a niced worker's collections still took both
// cores from the api. Each of the process's threads is lowered; threads started later inherit
// it from the one that starts them. Throws when the main thread's priority cannot be set.
export function lowerProcessPriority(nice: number): number {
  setPriority(nice);
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    return 1; // no per-thread view (not Linux): the process's priority is all there is
  }
  let lowered = 1;
  for (const thread of threads) {
    const id = Number(thread);
    if (id === process.pid) continue;
    try {
      setPriority(id, nice);
      lowered++;
    } catch {
      // a thread that ended meanwhile, or one already nicer than asked
    }
  }
  return lowered;
}
