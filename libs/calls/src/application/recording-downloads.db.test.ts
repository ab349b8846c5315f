import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { defineJob, JobRunner, LocalObjectStorage, OutboundClient, type PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { callsMigrations } from '../index';
import { ConfiguredAnalysers, PlatformDefaultAiResolver } from '../infrastructure/analysers';
import { OpenAiTranscriber } from '../infrastructure/openai-transcriber';
import { MAX_RECORDING_BYTES, StoredRecordingReader } from '../infrastructure/recording-reader';
import { LoopbackProviders } from '../testing/loopback-providers';
import { StreamingPeer } from '../testing/streaming-peer';
import { CallProcessor, type CallRow } from './call-processor';
import { enqueueCallProcessing, processCallJob } from './call-processing.job';
import { ProviderError } from './providers';

const MB = 1024 * 1024;
const MP3_HEAD = Buffer.from([0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0]);
const sha256 = async (path: string) => {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
};

// A recording_url is copied into the worker's file streamed, cut off past the limit while it arrives.
describe('downloading a recording_url', () => {
  jest.setTimeout(90_000);
  const cert = createSelfSignedCert();
  const work = mkdtempSync(join(tmpdir(), 'engage-downloads-'));
  const storage = new LocalObjectStorage(join(work, 'cdn'), 'http://cdn.test');
  const outbound = new OutboundClient({ allowHosts: ['127.0.0.1'], extraCa: cert.cert, keepAlive: false });
  const reader = new StoredRecordingReader(storage, outbound);
  let peer: StreamingPeer;

  beforeAll(async () => {
    peer = await new StreamingPeer(cert).start();
  });
  afterAll(async () => {
    await peer.close();
    rmSync(work, { recursive: true, force: true });
  });
  const row = (url: string): CallRow => ({
    id: randomUUID(),
    status: 'received',
    source: 'mobile',
    contact_id: null,
    recording_url: url,
    recording_key: null,
    recording_content_type: null,
    transcription: null,
  });

  it('writes a 40 MB body to its file while it still arrives: 8 MB are on disk before the last 24 MB are sent', async () => {
    const into = mkdtempSync(join(work, 'large-'));
    const call = row('');
    const path = join(into, `${call.id}.mp3`);
    const onDisk = () => {
      try {
        return statSync(path).size >= 8 * MB;
      } catch {
        return false;
      }
    };
    const url = peer.serve('/large.mp3', { bytes: 40 * MB, head: MP3_HEAD, contentType: 'audio/mpeg', pauseAt: 16 * MB, until: onDisk });
    const copy = await reader.read({ ...call, recording_url: url }, into);
    const served = await peer.served('/large.mp3')!;
    // A reader holding the body whole would write nothing before the end: the peer would wait in vain.
    expect(served).toMatchObject({ sent: 40 * MB, gateMet: true, cut: false });
    expect(served.writes).toBeGreaterThanOrEqual(640);
    expect([copy.path, copy.bytes, copy.contentType]).toEqual([path, 40 * MB, 'audio/mpeg']);
    expect(await sha256(path)).toBe(served.sha256);
  });

  it('stops a body that grows past the limit (no length announced), for good, and removes the partial file', async () => {
    const into = mkdtempSync(join(work, 'over-'));
    // 40 MB more than the limit: more than the connection's buffers could take while the reader stops.
    const url = peer.serve('/over.mp3', { bytes: MAX_RECORDING_BYTES + 40 * MB, head: MP3_HEAD, declareLength: false });
    const error = await reader.read(row(url), into).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect([(error as ProviderError).retryable, (error as ProviderError).message]).toEqual([
      false,
      `the recording at its address is larger than ${MAX_RECORDING_BYTES} bytes`,
    ]);
    const served = await peer.served('/over.mp3')!;
    expect(served.cut).toBe(true);
    expect(served.sent).toBeLessThan(MAX_RECORDING_BYTES + 40 * MB);
    expect(readdirSync(into)).toEqual([]);
  });

  it('refuses an announced length over the limit before reading the body', async () => {
    const into = mkdtempSync(join(work, 'declared-'));
    const url = peer.serve('/declared.mp3', { bytes: 200 * MB, head: MP3_HEAD });
    const error = await reader.read(row(url), into).catch((e: ProviderError) => [e.retryable, e.message]);
    expect(error).toEqual([false, `the recording at its address is larger than ${MAX_RECORDING_BYTES} bytes`]);
    const served = await peer.served('/declared.mp3')!;
    expect(served.cut).toBe(true);
    expect(served.sent).toBeLessThan(MAX_RECORDING_BYTES);
    expect(readdirSync(into)).toEqual([]);
  });

  describe('in the pipeline', () => {
    let runtime: PlatformRuntime;
    let providers: LoopbackProviders;
    let runner: JobRunner;

    beforeAll(async () => {
      runtime = await startTestRuntime({ role: 'worker', migrations: [...identityMigrations, ...crmMigrations, ...callsMigrations] });
      providers = await new LoopbackProviders().start();
      const processor = new CallProcessor({
        db: runtime.db,
        transcriber: new OpenAiTranscriber({ baseUrl: providers.baseUrl, apiKey: 'sk-t', model: 'whisper-1' }),
        analysers: new ConfiguredAnalysers(new PlatformDefaultAiResolver(), { baseUrl: providers.baseUrl, apiKey: 'sk-a', model: 'gpt-test' }),
        recordings: reader,
        language: 'auto',
        maxAttempts: processCallJob.retry.maxAttempts,
      });
      const job = defineJob({ name: processCallJob.name, handler: processor, retry: { ...processCallJob.retry, baseMs: 20, maxMs: 100 }, leaseMs: 60_000 });
      runner = new JobRunner(runtime.db, { jobs: [job], schedules: [], concurrency: 1, pollMs: 20 });
      void runner.start();
    });
    afterAll(async () => {
      await runner.stop();
      await providers.stop();
      await runtime.close();
    });

    it('fails the call at once with the reason when its recording_url serves more than the limit', async () => {
      const ctx = await makeOrganization(runtime);
      const id = randomUUID();
      const url = peer.serve(`/${id}.mp3`, { bytes: MAX_RECORDING_BYTES + 40 * MB, head: MP3_HEAD, declareLength: false });
      await runtime.db.inTenant(ctx, async (tx) => {
        await tx.query('INSERT INTO call_records (id, organization_id, recording_url) VALUES ($1, $2, $3)', [id, ctx.organizationId, url]);
        await enqueueCallProcessing(tx, id);
      });
      const read = 'SELECT status, failure_reason, attempts FROM call_records WHERE id = $1';
      let record: { status: string; failure_reason: string | null; attempts: number } | undefined;
      for (let i = 0; i < 600 && (!record || record.status === 'received' || record.status === 'transcribing'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        [record] = await runtime.db.systemQuery<{ status: string; failure_reason: string | null; attempts: number }>(read, [id]);
      }
      expect(record).toEqual({ status: 'failed', failure_reason: `the recording at its address is larger than ${MAX_RECORDING_BYTES} bytes`, attempts: 1 });
      expect((await peer.served(`/${id}.mp3`)!).cut).toBe(true);
      expect(providers.transcriptions).toHaveLength(0);
    });
  });
});
