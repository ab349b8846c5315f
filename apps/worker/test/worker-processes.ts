import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

// Helpers of the tests that start real worker processes (the build's dist/apps/worker/main.js).
export const root = resolve(__dirname, '..', '..', '..');

// A worker process with only PATH and `env`, resolved once it logs that it started.
export function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', 'worker', 'main.js')], { env: { PATH: process.env.PATH, ...env }, cwd: root });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`worker not ready after 30 s:\n${output}`)), 30_000);
    child.once('exit', (code) => rejectStart(new Error(`worker exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      if (!/engage worker started/.test(output)) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolveStart(child);
    }, 50);
  });
}

// The signal or exit code the process ended with.
export const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r(child.signalCode ?? child.exitCode);
    else child.once('exit', (code, signal) => r(signal ?? code));
  });

// Reads until `done` holds, or throws with the last value after `ms`.
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  if (!done(value)) throw new Error(`not reached in ${ms} ms: ${JSON.stringify(value)}`);
  return value;
}
