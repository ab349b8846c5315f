import * as fs from 'node:fs';

// Every line the process writes to its stdout while the returned list is live (pino writes to fd 1
// with fs.writeSync), so a test can search the logs for a secret. Call from beforeAll; jest's
// restoreAllMocks ends it.
export function captureOutput(): string[] {
  const captured: string[] = [];
  const keep = (chunk: unknown) => captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
  const writeSync = fs.writeSync;
  jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    keep(data);
    return (writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync);
  const stdout = process.stdout.write.bind(process.stdout);
  jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return (stdout as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write);
  return captured;
}
