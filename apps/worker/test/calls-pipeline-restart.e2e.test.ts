import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enqueueCallProcessing } from '@engage/calls';
import { LoopbackProviders, wavSaying } from '@engage/calls/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { LocalObjectStorage, type PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { exited, root, startWorker, until } from './worker-processes';

// A worker process killed (SIGKILL) in the middle of a transcription: once its claim lapses,
// another worker process takes the job again and the call record completes.

describe('call processing survives a killed worker', () => {
  jest.setTimeout(120_000);
  let runtime: PlatformRuntime;
  let peer: LoopbackProviders;
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-calls-worker-'));

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS });
    peer = await new LoopbackProviders().start();
  });
  afterAll(async () => {
    await peer.stop();
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('should resume a recording whose worker was killed mid-transcription and complete it', async () => {
    const ctx = await makeOrganization(runtime);
    const id = randomUUID();
    // The worker's storage is the local stand-in under its DATA_DIR.
    const stored = await new LocalObjectStorage(join(dataDir, 'cdn'), 'http://cdn.test').put(`s1/2026/11/${id}.wav`, wavSaying('please call me back'), {
      contentType: 'audio/wav',
    });
    await runtime.db.inTenant(ctx, async (tx) => {
      await tx.query(
        `INSERT INTO call_records (id, organization_id, recording_url, recording_key, recording_content_type) VALUES ($1, $2, $3, $4, 'audio/wav')`,
        [id, ctx.organizationId, stored.url, stored.key],
      );
      await enqueueCallProcessing(tx, id);
    });
    const env = {
      DATABASE_URL: runtime.config.DATABASE_URL,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: '',
      JOBS_POLL_MS: '50',
      TRANSCRIBE_BASE_URL: peer.baseUrl,
      AI_BASE_URL: peer.baseUrl,
    };
    const status = () =>
      runtime.db.systemQuery<{ status: string; attempts: number }>('SELECT status, attempts FROM call_records WHERE id = $1', [id]).then((r) => r[0]);

    peer.transcriptionScript.push({ hang: true });
    const first = await startWorker(env);
    await until(
      async () => ({ hanging: peer.hangingCount, ...(await status()) }),
      (s) => s.hanging === 1 && s.status === 'transcribing',
    );
    first.kill('SIGKILL');
    expect(await exited(first)).toBe('SIGKILL');
    peer.releaseHanging();

    // The claim's 30 minutes pass.
    await runtime.db.systemQuery(`UPDATE jobs SET locked_until = now() WHERE name = 'calls.process-recording' AND state = 'running'`);
    const second = await startWorker(env);
    try {
      expect(await until(status, (s) => s.status === 'completed')).toEqual({ status: 'completed', attempts: 2 });
      const [row] = await runtime.db.systemQuery<{ transcription: string }>('SELECT transcription FROM call_records WHERE id = $1', [id]);
      expect(row.transcription).toBe('please call me back');
      expect(peer.transcriptions).toHaveLength(2);
      expect(await runtime.db.systemQuery(`SELECT id FROM jobs WHERE name = 'calls.process-recording'`)).toEqual([]);
    } finally {
      second.kill('SIGTERM');
      expect(await exited(second)).toBe(0);
    }
  });
});
