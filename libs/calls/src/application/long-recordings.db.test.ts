import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { defineJob, JobRunner, LocalObjectStorage, OutboundClient, type PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { type AudioFormat, sniffAudioFormat } from '../domain/audio-format';
import { callsMigrations } from '../index';
import { ConfiguredAnalysers, PlatformDefaultAiResolver } from '../infrastructure/analysers';
import { OpenAiTranscriber, TRANSCRIBE_MAX_PIECE_BYTES } from '../infrastructure/openai-transcriber';
import { StoredRecordingReader } from '../infrastructure/recording-reader';
import { isoBoxes, ladderText, meetingRecording, toneLadder } from '../testing/audio-fixtures';
import { AUDIO_HEADERS } from '../testing/calls-test-app';
import { LoopbackProviders } from '../testing/loopback-providers';
import { CallProcessor } from './call-processor';
import { enqueueCallProcessing, processCallJob } from './call-processing.job';

// Recordings over the transcription limit, of every accepted format, through the job runner, the
// processor, the storage reader, the cutting and the transcriber, to a loopback service that
// refuses any piece that is not a clean file of a known format and "hears" each piece's tones.
const SECONDS = 120;
const FORMATS: AudioFormat['name'][] = ['m4a', '3gp', 'ogg', 'webm', 'aac', 'amr', 'mp3', 'wav'];

const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

// Tones heard across piece boundaries, a step that two pieces share said once.
const merged = (text: string) => (text.match(/tone \d+/g) ?? []).filter((tone, i, all) => tone !== all[i - 1]).join(' ');

describe('recordings over the transcription limit, every format', () => {
  let runtime: PlatformRuntime;
  let peer: LoopbackProviders;
  const dir = mkdtempSync(join(tmpdir(), 'engage-long-'));
  const storage = new LocalObjectStorage(join(dir, 'cdn'), 'http://cdn.test');
  const work = join(dir, 'work');
  const fixtures = join(dir, 'fixtures');
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    mkdirSync(work);
    mkdirSync(fixtures);
    runtime = await startTestRuntime({ role: 'worker', migrations: [...identityMigrations, ...crmMigrations, ...callsMigrations] });
    peer = await new LoopbackProviders().start();
    peer.hearing = true;
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    // Nothing is left of a run's copies and pieces, whether it succeeded or failed.
    expect(readdirSync(work)).toEqual([]);
  });
  afterAll(async () => {
    await peer.stop();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function startRunner(maxPieceBytes?: number): void {
    const processor = new CallProcessor({
      db: runtime.db,
      transcriber: new OpenAiTranscriber({ baseUrl: peer.baseUrl, model: 'whisper-1', maxPieceBytes, workDir: work }),
      analysers: new ConfiguredAnalysers(new PlatformDefaultAiResolver(), { model: 'unused' }),
      recordings: new StoredRecordingReader(storage, new OutboundClient()),
      language: 'auto',
      maxAttempts: processCallJob.retry.maxAttempts,
      workDir: work,
    });
    const job = defineJob({ name: processCallJob.name, handler: processor, retry: { ...processCallJob.retry, baseMs: 20, maxMs: 100 } });
    const runner = new JobRunner(runtime.db, { jobs: [job], schedules: [], concurrency: 1, pollMs: 20 });
    runners.push(runner);
    void runner.start();
  }

  // A stored recording and its call record, with the processing job, as registration leaves them.
  async function recordCall(bytes: Buffer, ext: string, contentType: string): Promise<string> {
    const ctx = await makeOrganization(runtime);
    const id = randomUUID();
    const key = `suite-1/2026/11/${id}.${ext}`;
    const stored = await storage.put(key, bytes, { contentType });
    await runtime.db.inTenant(ctx, async (tx) => {
      await tx.query(
        `INSERT INTO call_records (id, organization_id, recording_url, recording_key, recording_content_type, recording_bytes) VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, ctx.organizationId, stored.url, key, contentType, stored.bytes],
      );
      await enqueueCallProcessing(tx, id);
    });
    return id;
  }

  const settled = (id: string, ms?: number) =>
    eventually(
      () =>
        runtime.db
          .systemQuery<{ status: string; transcription: string | null; failure_reason: string | null }>(
            'SELECT status, transcription, failure_reason FROM call_records WHERE id = $1',
            [id],
          )
          .then((rows) => rows[0]),
      (r) => ['completed', 'failed'].includes(r.status),
      ms,
    );

  it.each(FORMATS)('%s: cut into valid pieces under the limit, their texts joined in order', async (name) => {
    const path = join(fixtures, `ladder.${name}`);
    await toneLadder(name, SECONDS, path);
    const whole = readFileSync(path);
    const format = sniffAudioFormat(whole.subarray(0, 64))!;
    expect(format.name).toBe(name);
    const limit = Math.ceil(whole.length / 3.5);
    startRunner(limit);
    const before = peer.transcriptions.length;
    const id = await recordCall(whole, format.ext, format.contentType);

    const done = await settled(id);
    expect(done).toMatchObject({ status: 'completed', failure_reason: null });
    const pieces = peer.transcriptions.slice(before);
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    pieces.forEach((piece, i) => {
      expect(piece.file).toMatchObject({ name: `${id}-part${i + 1}.${format.ext}`, type: format.contentType });
      expect(piece.file!.bytes.length).toBeLessThanOrEqual(limit);
      expect(piece.heard).toMatchObject({ format: name, errors: '' });
      expect(piece.heard!.seconds).toBeGreaterThan(5);
      if (name === 'm4a' || name === '3gp') {
        const boxes = isoBoxes(piece.file!.bytes);
        expect([boxes[0], boxes.includes('moov'), boxes.includes('mdat')]).toEqual(['ftyp', true, true]);
      }
    });
    // Together the pieces are the whole recording (codec frames round each piece's length).
    const total = pieces.reduce((sum, piece) => sum + piece.heard!.seconds, 0);
    expect(Math.abs(total - SECONDS)).toBeLessThan(2);
    // Each piece's text, in order: the tone ladder climbed from bottom to top, no step missing.
    expect(done.transcription).toBe(pieces.map((piece) => piece.heard!.tones.map((hz) => `tone ${hz}`).join(' ')).join(' '));
    expect(merged(done.transcription!)).toBe(ladderText(SECONDS));
  });

  it('transcribes a 50-minute Zoom meeting (a 30 MB M4A) at the provider’s real limit', async () => {
    const path = join(fixtures, 'meeting.m4a');
    await meetingRecording(3000, 150, path);
    const whole = readFileSync(path);
    expect(whole.length).toBeGreaterThan(TRANSCRIBE_MAX_PIECE_BYTES);
    startRunner();
    const before = peer.transcriptions.length;
    const id = await recordCall(whole, 'm4a', 'audio/mp4');
    const done = await settled(id, 180_000);
    expect(done).toMatchObject({ status: 'completed', failure_reason: null });
    const pieces = peer.transcriptions.slice(before);
    expect(pieces.map((p) => [p.file!.name, p.file!.bytes.length <= TRANSCRIBE_MAX_PIECE_BYTES, p.heard!.format, p.heard!.errors])).toEqual(
      pieces.map((_, i) => [`${id}-part${i + 1}.m4a`, true, 'm4a', '']),
    );
    expect(pieces.length).toBe(2);
    expect(Math.abs(pieces.reduce((sum, p) => sum + p.heard!.seconds, 0) - 3000)).toBeLessThan(2);
    expect(merged(done.transcription!)).toBe(ladderText(3000, 150));
  }, 240_000);

  it('sends a recording within the limit whole, bytes unchanged', async () => {
    const path = join(fixtures, 'short.m4a');
    await toneLadder('m4a', 30, path);
    const whole = readFileSync(path);
    startRunner(whole.length);
    const before = peer.transcriptions.length;
    const id = await recordCall(whole, 'm4a', 'audio/mp4');
    expect(await settled(id)).toMatchObject({ status: 'completed', transcription: ladderText(30) });
    const sent = peer.transcriptions.slice(before);
    expect(sent.map((t) => [t.file!.name, t.file!.bytes.equals(whole)])).toEqual([[`${id}.m4a`, true]]);
  });

  it('fails a recording that cannot be cut with the reason on the record, sending nothing', async () => {
    startRunner(64 * 1024);
    const before = peer.transcriptions.length;
    // An M4A header, then bytes that are no ISO media boxes.
    const garbage = Buffer.concat([AUDIO_HEADERS.m4a, Buffer.alloc(200 * 1024, 'not audio at all ')]);
    const broken = await recordCall(garbage, 'm4a', 'audio/mp4');
    const failed = await settled(broken);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toBe('the recording cannot be split: ffmpeg could not read the m4a recording: Invalid data found when processing input');

    // A file of no accepted format (a recording_url's, say) cannot be cut either.
    const unknown = await recordCall(Buffer.alloc(100 * 1024, 'plain text '), 'bin', 'application/octet-stream');
    expect(await settled(unknown)).toMatchObject({
      status: 'failed',
      failure_reason: `a recording of ${100 * 1024} bytes exceeds the transcription limit of ${64 * 1024} bytes and its format is not known`,
    });
    expect(peer.transcriptions.length).toBe(before);
  });
});
