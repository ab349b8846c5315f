import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioFormat } from '../domain/audio-format';
import { type FfmpegRun, ffmpegPath, lastError, runFfmpeg } from './ffmpeg';

// Cuts a recording into pieces a speech-to-text provider accepts, each a valid file of the same
// format, without decoding: ffmpeg's segment muxer copies the first audio stream's packets into
// consecutive files (`-c copy`), cutting between packets, every audio packet being a point where a
// decoder can start. Each piece gets its own container (an M4A its own moov, an Ogg its own headers,
// a WAV its own RIFF header) and timestamps starting at zero. A video stream, if any, is dropped.

export class UnsplittableRecording extends Error {}

// The demuxer reading each accepted format, named rather than guessed by ffmpeg, so a file is read
// only as the format its bytes were accepted as (no playlists or other files it might point to).
const DEMUXERS: Record<AudioFormat['name'], string> = {
  mp3: 'mp3',
  m4a: 'mov',
  wav: 'wav',
  ogg: 'ogg',
  webm: 'matroska',
  aac: 'aac',
  '3gp': 'mov',
  amr: 'amr',
};

// The muxer writing pieces of each accepted format.
const MUXERS: Record<AudioFormat['name'], string> = {
  mp3: 'mp3',
  m4a: 'mp4',
  wav: 'wav',
  ogg: 'ogg',
  webm: 'webm',
  aac: 'adts',
  '3gp': '3gp',
  amr: 'amr',
};

export interface SplitInput {
  path: string;
  bytes: number;
  format: AudioFormat;
}

const inputOf = (input: SplitInput) => ['-protocol_whitelist', 'file', '-f', DEMUXERS[input.format.name], '-i', input.path];

// Pieces are cut by time, so their sizes follow the bitrate, which varies: aim below the limit,
// check, and cut shorter when a piece came out too large.
const AIM = 0.8;
const ROUNDS = 4;

// The pieces' paths in order (files under `outDir`), each at most maxBytes long.
export async function splitRecordingFile(input: SplitInput, outDir: string, maxBytes: number, timeoutMs = 600_000): Promise<string[]> {
  const ffmpeg = ffmpegPath();
  if (!ffmpeg) {
    throw new UnsplittableRecording(`no ffmpeg is installed for ${process.platform}-${process.arch}, so a recording over ${maxBytes} bytes cannot be cut`);
  }
  const seconds = await durationOf(ffmpeg, input, timeoutMs);
  let pieceSeconds = (seconds * maxBytes * AIM) / input.bytes;
  for (let round = 1; round <= ROUNDS; round++) {
    if (pieceSeconds < 1) break;
    const dir = join(outDir, `round-${round}`);
    await mkdir(dir, { recursive: true });
    const pieces = await segment(ffmpeg, input, dir, pieceSeconds, timeoutMs);
    const sizes = await Promise.all(pieces.map(async (piece) => (await stat(piece)).size));
    const largest = Math.max(...sizes);
    if (largest <= maxBytes) return pieces;
    await rm(dir, { recursive: true, force: true });
    pieceSeconds = pieceSeconds * (maxBytes / largest) * AIM;
  }
  throw new UnsplittableRecording(`the ${input.format.name} recording cannot be cut into pieces of at most ${maxBytes} bytes`);
}

// The audio's length in seconds, from a copying pass over all its packets (no decoding): the
// container's own duration is missing from some files (a browser's WebM) or estimated (raw AAC).
async function durationOf(ffmpeg: string, input: SplitInput, timeoutMs: number): Promise<number> {
  const run = await runFfmpeg(ffmpeg, ['-v', 'error', ...inputOf(input), '-map', '0:a:0', '-c', 'copy', '-f', 'null', '-progress', 'pipe:1', '-'], timeoutMs);
  if (run.code !== 0 && /Stream map '0:a:0' matches no streams/.test(run.stderr)) {
    throw new UnsplittableRecording(`the ${input.format.name} recording has no audio stream`);
  }
  failed(run, input, 'read');
  const times = [...run.stdout.matchAll(/^out_time_us=(\d+)$/gm)].map((m) => Number(m[1]));
  const seconds = (times[times.length - 1] ?? 0) / 1e6;
  if (!(seconds > 0)) throw new UnsplittableRecording(`the ${input.format.name} recording has no audio to cut`);
  return seconds;
}

async function segment(ffmpeg: string, input: SplitInput, dir: string, seconds: number, timeoutMs: number): Promise<string[]> {
  const ext = input.format.ext;
  const run = await runFfmpeg(
    ffmpeg,
    [
      '-v',
      'error',
      ...inputOf(input),
      '-map',
      '0:a:0',
      '-c',
      'copy',
      '-map_metadata',
      '-1',
      '-f',
      'segment',
      '-segment_time',
      seconds.toFixed(3),
      '-segment_format',
      MUXERS[input.format.name],
      '-reset_timestamps',
      '1',
      join(dir, `piece-%05d.${ext}`),
    ],
    timeoutMs,
  );
  failed(run, input, 'cut');
  const names = (await readdir(dir)).filter((name) => name.startsWith('piece-')).sort();
  if (names.length === 0) throw new UnsplittableRecording(`cutting the ${input.format.name} recording gave no pieces`);
  return names.map((name) => join(dir, name));
}

function failed(run: FfmpegRun, input: SplitInput, what: string): void {
  // Too slow may pass (a busy machine): a plain error, retried by the job.
  if (run.timedOut) throw new Error(`ffmpeg could not ${what} the ${input.format.name} recording in time`);
  if (run.code !== 0) throw new UnsplittableRecording(`ffmpeg could not ${what} the ${input.format.name} recording: ${lastError(run, input.path)}`);
}
