import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AudioFormat, sniffAudioFormat } from '../domain/audio-format';
import { toneLadder } from '../testing/audio-fixtures';
import { ffmpegPath, runFfmpeg } from './ffmpeg';
import { splitRecordingFile, UnsplittableRecording } from './recording-splitter';

// The cutting's own failures (the pipeline's successes are in long-recordings.db.test.ts).
describe('cutting a recording with ffmpeg', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engage-split-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const inputOf = (path: string) => {
    const format = sniffAudioFormat(readFileSync(path).subarray(0, 64)) as AudioFormat;
    return { path, bytes: statSync(path).size, format };
  };

  it('cuts a WAV into pieces within the limit, and refuses a limit below what one second takes', async () => {
    const wav = join(dir, 'a.wav');
    await toneLadder('wav', 30, wav);
    const out = mkdtempSync(join(dir, 'out-'));
    const pieces = await splitRecordingFile(inputOf(wav), out, 200_000);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.every((piece) => statSync(piece).size <= 200_000)).toBe(true);
    // 8 kHz 16-bit mono is 16,000 bytes a second: pieces of 4,000 bytes would be a quarter second.
    const tiny = await splitRecordingFile(inputOf(wav), mkdtempSync(join(dir, 'tiny-')), 4_000).catch((e: Error) => e);
    expect(tiny).toBeInstanceOf(UnsplittableRecording);
    expect((tiny as Error).message).toBe('the wav recording cannot be cut into pieces of at most 4000 bytes');
  });

  it('says a file without audio cannot be cut, and that a run out of time may be tried again', async () => {
    const video = join(dir, 'video.m4a');
    const made = await runFfmpeg(ffmpegPath()!, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=d=2:s=64x64', '-c:v', 'mpeg4', '-f', 'mp4', video], 60_000);
    expect(made.code).toBe(0);
    const silent = await splitRecordingFile(inputOf(video), mkdtempSync(join(dir, 'v-')), 1_000).catch((e: Error) => e);
    expect(silent).toBeInstanceOf(UnsplittableRecording);
    expect((silent as Error).message).toBe('the m4a recording has no audio stream');

    const wav = join(dir, 'b.wav');
    await toneLadder('wav', 20, wav);
    const slow = await splitRecordingFile(inputOf(wav), mkdtempSync(join(dir, 's-')), 100_000, 1).catch((e: Error) => e);
    expect([slow instanceof UnsplittableRecording, (slow as Error).message]).toEqual([false, 'ffmpeg could not read the wav recording in time']);
  });
});
