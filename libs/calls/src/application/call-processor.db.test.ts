import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { type Database, defineJob, JobRunner, LocalObjectStorage, OutboundClient, type PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { callsMigrations } from '../index';
import { ConfiguredAnalysers, PlatformDefaultAiResolver } from '../infrastructure/analysers';
import { OpenAiTranscriber } from '../infrastructure/openai-transcriber';
import { StoredRecordingReader } from '../infrastructure/recording-reader';
import { LoopbackProviders, wavSaying } from '../testing/loopback-providers';
import { CallProcessor } from './call-processor';
import { enqueueCallProcessing, processCallJob } from './call-processing.job';

const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('the call processing pipeline on the job runner', () => {
  let runtime: PlatformRuntime;
  let peer: LoopbackProviders;
  const dir = mkdtempSync(join(tmpdir(), 'engage-calls-'));
  const storage = new LocalObjectStorage(dir, 'http://cdn.test');
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker', migrations: [...identityMigrations, ...crmMigrations, ...callsMigrations] });
    peer = await new LoopbackProviders().start();
  });
  afterEach(async () => {
    peer.releaseHanging();
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  });
  afterAll(async () => {
    await peer.stop();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The production job with fast retries and a short lease; the handler is the real processor.
  function startRunner(opts: { db?: Database; transcribe?: boolean; ai?: boolean; leaseMs?: number } = {}): JobRunner {
    const db = opts.db ?? runtime.db;
    const processor = new CallProcessor({
      db,
      transcriber: opts.transcribe === false ? null : new OpenAiTranscriber({ baseUrl: peer.baseUrl, apiKey: 'sk-t', model: 'whisper-1' }),
      analysers: new ConfiguredAnalysers(new PlatformDefaultAiResolver(), {
        baseUrl: opts.ai === false ? undefined : peer.baseUrl,
        apiKey: 'sk-a',
        model: 'gpt-test',
      }),
      recordings: new StoredRecordingReader(storage, new OutboundClient()),
      language: 'auto',
      maxAttempts: processCallJob.retry.maxAttempts,
    });
    const retry = { ...processCallJob.retry, baseMs: 20, maxMs: 100 };
    const job = defineJob({ name: processCallJob.name, handler: processor, retry, leaseMs: opts.leaseMs ?? 60_000 });
    const runner = new JobRunner(db, { jobs: [job], schedules: [], concurrency: 1, pollMs: 20 });
    runners.push(runner);
    void runner.start();
    return runner;
  }

  // A recorded call of a contact: its WAV "saying" the text, stored, and its job enqueued with the row.
  async function recordCall(text: string): Promise<{ ctx: RequestContext; id: string; contactId: string }> {
    const ctx = await makeOrganization(runtime);
    const id = randomUUID();
    const key = `suite-1/2026/11/${id}.wav`;
    const stored = await storage.put(key, wavSaying(text), { contentType: 'audio/wav' });
    const contactId = await runtime.db.inTenant(ctx, async (tx) => {
      const insertContact = `INSERT INTO contacts (organization_id, first_name) VALUES ($1, 'Mona') RETURNING id`;
      const [contact] = await tx.query<{ id: string }>(insertContact, [ctx.organizationId]);
      await tx.query(
        `INSERT INTO call_records (id, organization_id, contact_id, recording_url, recording_key, recording_content_type, recording_bytes)
         VALUES ($1, $2, $3, $4, $5, 'audio/wav', $6)`,
        [id, ctx.organizationId, contact.id, stored.url, key, stored.bytes],
      );
      await enqueueCallProcessing(tx, id);
      return contact.id;
    });
    return { ctx, id, contactId };
  }

  const record = (id: string) =>
    runtime.db
      .systemQuery<{
        status: string;
        transcription: string | null;
        analysis: Record<string, unknown> | null;
        failure_reason: string | null;
        attempts: number;
      }>('SELECT status, transcription, analysis, failure_reason, attempts FROM call_records WHERE id = $1', [id])
      .then((rows) => rows[0]);
  const events = (id: string) =>
    runtime.db.systemQuery<{ type: string; payload: { call: Record<string, unknown> } }>(
      'SELECT type, payload FROM outbox WHERE aggregate_id = $1 ORDER BY seq',
      [id],
    );
  const settled = (id: string) =>
    eventually(
      () => record(id),
      (r) => ['completed', 'failed', 'transcription_unavailable'].includes(r.status),
    );

  it('takes a recording from received to completed: transcription stored, AI analysis, call.analyzed for the timeline', async () => {
    startRunner();
    const { id, ctx, contactId } = await recordCall('thank you, please send the updated quotation tomorrow');
    const done = await settled(id);
    expect(done).toMatchObject({
      status: 'completed',
      transcription: 'thank you, please send the updated quotation tomorrow',
      failure_reason: null,
      attempts: 1,
    });
    expect(done.analysis).toEqual({
      analyser: 'ai',
      model: 'gpt-test',
      sentiment: 'positive',
      keywords: ['thank', 'please', 'updated'],
      action_items: ['Send the quote'],
      summary: 'The customer said: thank you, please send the updated quotation tomorrow',
    });
    const [event] = await events(id);
    expect(event.type).toBe('call.analyzed');
    expect(event.payload.call).toMatchObject({ id, organization_id: ctx.organizationId, contact_id: contactId, status: 'completed', sentiment: 'positive' });
  });

  it('retries provider errors with backoff and completes, without transcribing again once the text is stored', async () => {
    startRunner();
    peer.transcriptionScript.push({ status: 503, body: { error: { message: 'busy' } } }, { status: 502, body: {} });
    peer.completionScript.push({ status: 500, body: { error: { message: 'model overloaded' } } });
    const before = peer.transcriptions.length;
    const { id } = await recordCall('the invoice was wrong, I want a refund');
    expect(await settled(id)).toMatchObject({ status: 'completed', attempts: 4, transcription: 'the invoice was wrong, I want a refund' });
    expect(peer.transcriptions.length - before).toBe(3);
  });

  it('fails the record, with its reason and call.failed, after two malformed AI answers', async () => {
    startRunner();
    peer.completionScript.push({ content: 'positive!' }, { content: '{"sentiment":"positive"}' });
    const { id } = await recordCall('hello');
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'failed', attempts: 1, transcription: 'hello', analysis: null });
    expect(done.failure_reason).toBe('the AI answered twice with malformed analysis (keywords must be a list of at most 20 strings)');
    expect((await events(id)).map((e) => [e.type, e.payload.call.failure_reason])).toEqual([['call.failed', done.failure_reason]]);
  });

  it('gives up after its attempts when the provider keeps failing', async () => {
    startRunner();
    for (let i = 0; i < 6; i++) peer.transcriptionScript.push({ status: 503, body: { error: { message: 'down for maintenance' } } });
    const { id } = await recordCall('anyone there');
    expect(await settled(id)).toMatchObject({
      status: 'failed',
      attempts: 6,
      failure_reason: 'gave up after 6 attempts: transcription answered 503: down for maintenance',
    });
  });

  it('says transcription_unavailable when no transcription provider is configured, and uses the local analyser when no AI is', async () => {
    startRunner({ transcribe: false });
    const unavailable = await recordCall('not heard');
    expect(await settled(unavailable.id)).toMatchObject({ status: 'transcription_unavailable', transcription: null, analysis: null });
    expect((await record(unavailable.id)).failure_reason).toMatch(/TRANSCRIBE_BASE_URL is unset/);
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));

    startRunner({ ai: false });
    const completions = peer.completions.length;
    const local = await recordCall('شكرا الخدمة ممتازة والتوصيل سريع، الخدمة رائعة');
    expect((await settled(local.id)).analysis).toEqual({
      analyser: 'local-heuristic',
      model: null,
      sentiment: 'positive',
      keywords: ['الخدمه', 'التوصيل'],
      action_items: [],
      summary: null,
    });
    expect(peer.completions.length).toBe(completions);
  });
});
