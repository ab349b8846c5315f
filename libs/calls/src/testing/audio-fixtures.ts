import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AudioFormat, sniffAudioFormat } from '../domain/audio-format';
import { ffmpegPath, runFfmpeg } from '../infrastructure/ffmpeg';

// Real recordings for tests, made with the project's ffmpeg: a "tone ladder" whose pitch rises by
// 50 Hz every LADDER_STEP_SECONDS (200, 250, 300 Hz ...; low enough for narrowband AMR), so what a
// piece "says" tells where in the recording it comes from, and the pieces' texts joined in order
// must climb the whole ladder.

export const LADDER_STEP_SECONDS = 10;

// How each format is encoded, as the devices that make it would: AAC in M4A (phones, Zoom) and raw
// ADTS, Opus in Ogg and WebM (browsers, messengers), AMR-NB raw and in 3GP (Android recorders).
const ENCODINGS: Record<AudioFormat['name'], string[]> = {
  m4a: ['-c:a', 'aac', '-b:a', '64k', '-f', 'ipod'],
  aac: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'],
  ogg: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'],
  webm: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'webm'],
  amr: ['-ar', '8000', '-ac', '1', '-c:a', 'libopencore_amrnb', '-b:a', '12.2k', '-f', 'amr'],
  '3gp': ['-ar', '8000', '-ac', '1', '-c:a', 'libopencore_amrnb', '-b:a', '12.2k', '-f', '3gp'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  wav: ['-ar', '8000', '-c:a', 'pcm_s16le', '-f', 'wav'],
};

function ffmpeg(): string {
  const path = ffmpegPath();
  if (!path) throw new Error(`the ffmpeg package has no binary for ${process.platform}-${process.arch}`);
  return path;
}

// A tone ladder of `seconds` in `format`, written to `path` (the same bytes on every run).
export async function toneLadder(format: AudioFormat['name'], seconds: number, path: string): Promise<void> {
  const source = `aevalsrc=0.5*sin(2*PI*(200+50*floor(t/${LADDER_STEP_SECONDS}))*t):s=16000:d=${seconds}`;
  const bitexact = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];
  const run = await runFfmpeg(ffmpeg(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', source, ...bitexact, ...ENCODINGS[format], path], 120_000);
  if (run.code !== 0) throw new Error(`ffmpeg could not make a ${format} tone ladder: ${run.stderr}`);
}

// A meeting's audio as Zoom records it (AAC at 80 kbit/s, 44.1 kHz mono, in M4A): a tone ladder with
// a step every `stepSeconds`, under hiss above 6 kHz that fills the bitrate as room noise would and
// that hearing (at 8 kHz) does not pick up.
export async function meetingRecording(seconds: number, stepSeconds: number, path: string): Promise<void> {
  const steps = Math.ceil(seconds / stepSeconds);
  const tones = Array.from({ length: steps }, (_, i) => `sine=f=${200 + 50 * i}:d=${stepSeconds}:sample_rate=44100[s${i}]`);
  const graph = [
    ...tones,
    `${tones.map((_, i) => `[s${i}]`).join('')}concat=n=${steps}:v=0:a=1,atrim=0:${seconds}[t]`,
    `anoisesrc=color=white:amplitude=0.1:seed=3:sample_rate=44100:d=${seconds},highpass=f=6000,highpass=f=6000[n]`,
    // sine's amplitude is 1/8 and amix halves each input: the tone ends at about 0.38 of full scale.
    '[t][n]amix=inputs=2:duration=first:dropout_transition=0,volume=6[out]',
  ].join(';');
  const encode = [
    ...['-map', '[out]', '-ac', '1', '-c:a', 'aac', '-b:a', '80k'],
    ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-f', 'ipod'],
  ];
  const run = await runFfmpeg(ffmpeg(), ['-v', 'error', '-y', '-filter_complex', graph, ...encode, path], 300_000);
  if (run.code !== 0) throw new Error(`ffmpeg could not make a meeting recording: ${run.stderr}`);
}

// The tones of a whole ladder of `seconds`, as heard: "tone 200 tone 250 ...".
export const ladderText = (seconds: number, stepSeconds = LADDER_STEP_SECONDS) =>
  Array.from({ length: Math.ceil(seconds / stepSeconds) }, (_, i) => `tone ${200 + 50 * i}`).join(' ');

export interface HeardAudio {
  // The format its first bytes say, null for none of the accepted ones.
  format: AudioFormat['name'] | null;
  // What the decoder said (empty for a clean file).
  errors: string;
  seconds: number;
  // The pitch of each whole second (to the nearest 50 Hz), silence left out, repeats merged.
  tones: number[];
}

const RATE = 8000;

// What a speech-to-text service would make of a file: it must be of a known format and decode
// from start to end without an error; then its tones are "heard".
export async function hearAudio(bytes: Buffer, name: string): Promise<HeardAudio> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-heard-'));
  try {
    const input = join(dir, name.replace(/[^A-Za-z0-9.-]/g, '_'));
    const output = join(dir, 'pcm.raw');
    await writeFile(input, bytes);
    const run = await runFfmpeg(ffmpeg(), ['-v', 'error', '-i', input, '-f', 's16le', '-ac', '1', '-ar', String(RATE), output], 60_000);
    const pcm = run.code === 0 ? await readFile(output) : Buffer.alloc(0);
    const errors = run.code === 0 ? run.stderr.trim() : run.stderr.trim() || `exit code ${run.code}`;
    return { format: sniffAudioFormat(bytes.subarray(0, 64))?.name ?? null, errors, seconds: pcm.length / 2 / RATE, tones: tonesOf(pcm) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Zero crossings per second (with a dead band against codec noise) give a pure tone's pitch.
function tonesOf(pcm: Buffer): number[] {
  const tones: number[] = [];
  for (let start = 0; start + RATE * 2 <= pcm.length; start += RATE * 2) {
    let crossings = 0;
    let sign = 0;
    let energy = 0;
    for (let at = start; at < start + RATE * 2; at += 2) {
      const sample = pcm.readInt16LE(at);
      energy += sample * sample;
      const now = sample > 1000 ? 1 : sample < -1000 ? -1 : 0;
      if (now !== 0 && sign !== 0 && now !== sign) crossings++;
      if (now !== 0) sign = now;
    }
    if (Math.sqrt(energy / RATE) < 2000) continue;
    const tone = Math.round(crossings / 2 / 50) * 50;
    if (tones[tones.length - 1] !== tone) tones.push(tone);
  }
  return tones;
}

// The top-level boxes of an ISO media file, which must cover it exactly.
export function isoBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 8 > bytes.length) throw new Error(`a truncated box header at ${at}`);
    let size = bytes.readUInt32BE(at);
    if (size === 1) size = Number(bytes.readBigUInt64BE(at + 8));
    if (size === 0) size = bytes.length - at;
    if (size < 8 || at + size > bytes.length) throw new Error(`a box of ${size} bytes at ${at} runs past the file's end`);
    boxes.push(bytes.toString('latin1', at + 4, at + 8));
    at += size;
  }
  return boxes;
}
