import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

// The ffmpeg executable comes inside an npm package of this platform (@ffmpeg-installer/<os>-<arch>),
// so installing the project brings it and nothing is fetched from elsewhere. Looked up on first use:
// on a platform without such a package it is null and recordings over the limit cannot be split.
let located: string | null | undefined;

export function ffmpegPath(): string | null {
  if (located === undefined) {
    try {
      located = (createRequire(__filename)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    } catch {
      located = null;
    }
  }
  return located;
}

export interface FfmpegRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

// What a run may print that we keep (errors and progress lines are short; more is noise).
const KEEP_CHARS = 16 * 1024;

// Runs ffmpeg with `args` (no shell, no stdin), killed after `timeoutMs`. It never throws for a
// failed run: the caller reads the exit code and the end of stderr.
export function runFfmpeg(binary: string, args: string[], timeoutMs: number): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-hide_banner', '-nostdin', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-KEEP_CHARS)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-KEEP_CHARS)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

// The last line ffmpeg printed to stderr, for a failure reason (paths of this host left out).
export function lastError(run: FfmpegRun, path: string): string {
  const lines = run.stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines[lines.length - 1] ?? `exit code ${run.code}`;
  return last.split(`${path}: `).join('').split(path).join('the recording').slice(0, 300);
}
