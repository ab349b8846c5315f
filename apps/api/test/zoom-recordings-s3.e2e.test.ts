import { createHash, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MAX_MEETING_AUDIO_BYTES, zoomSignature } from '@engage/calls';
import { StreamingPeer } from '@engage/calls/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, startTestRuntime, startTestS3Server, type TestS3Server } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

const MB = 1024 * 1024;
const M4A_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A \x00\x00\x00\x00M4A mp42isom', 'latin1')]);

// A meeting's audio file goes from Zoom to the S3-compatible CDN as it arrives, never whole in
// memory, and a file past the limit is stopped mid-way with nothing left in the bucket.
describe('Zoom recording downloads streamed to an S3-compatible CDN', () => {
  jest.setTimeout(120_000);
  const cert = createSelfSignedCert();
  let s3: TestS3Server;
  let zoom: StreamingPeer;
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    s3 = await startTestS3Server();
    zoom = await new StreamingPeer(cert).start();
    runtime = await startTestRuntime({
      role: 'all',
      migrations: CONTEXT_MIGRATIONS,
      env: { ...s3.env, OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath, JOBS_POLL_MS: '50' },
    });
    app = await createApiApp(runtime);
    tenant = await createTestTenant(app, 'Org with Zoom');
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'suite_id', 'suite-z');
    const payload = { secret_token: 'zoom-secret-token-z' };
    const set = await app.inject({ method: 'PUT', url: '/functions/v1/zoom-settings', headers: tenant.session, payload });
    expect(set.statusCode).toBe(200);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    await zoom.close();
    await s3.close();
  });

  // recording.completed for one audio file at `path` of the peer; answers the call record's id.
  const announce = async (path: string): Promise<string> => {
    const body = JSON.stringify({
      event: 'recording.completed',
      download_token: 'zoom-download-token',
      payload: {
        object: {
          uuid: `u-${randomUUID()}`,
          id: 222,
          topic: 'All hands',
          recording_files: [{ id: 'a', file_type: 'M4A', file_extension: 'M4A', recording_type: 'audio_only', download_url: `${zoom.url}${path}` }],
        },
      },
    });
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = zoomSignature('zoom-secret-token-z', ts, Buffer.from(body));
    const res = await app.inject({
      method: 'POST',
      url: `/functions/v1/zoom-webhook/${tenant.ctx.organizationId}`,
      payload: body,
      headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-signature': signature },
    });
    expect(res.statusCode).toBe(200);
    return res.json().call_record_ids[0] as string;
  };
  type Row = { status: string; failure_reason: string | null; recording_key: string | null; recording_bytes: number | null };
  const imported = async (id: string): Promise<Row> => {
    for (let i = 0; i < 1200; i++) {
      const sql = 'SELECT status, failure_reason, recording_key, recording_bytes::int AS recording_bytes FROM call_records WHERE id = $1';
      const [row] = await runtime.db.systemQuery<Row>(sql, [id]);
      if (row.recording_key || row.status === 'failed') return row;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the meeting recording was neither imported nor failed');
  };
  const partsStored = () => s3.requests.filter((r) => r.method === 'PUT' && r.path.includes('partNumber=') && r.status === 200).length;

  it('uploads a 40 MB file part by part while it still arrives: a part is in the bucket before the last 24 MB are sent', async () => {
    const before = partsStored();
    const gate = { pauseAt: 16 * MB, until: () => partsStored() > before };
    zoom.serve('/rec/large', { bytes: 40 * MB, head: M4A_HEAD, authorization: 'Bearer zoom-download-token', ...gate });
    const id = await announce('/rec/large');
    const row = await imported(id);
    const served = await zoom.served('/rec/large')!;
    // An importer holding the file whole would upload nothing before the end: the peer would wait in vain.
    expect(served).toMatchObject({ sent: 40 * MB, gateMet: true, cut: false });
    // Imported (the pipeline may already have gone on: no transcription provider is configured here).
    expect(row.status).not.toBe('failed');
    expect(row.recording_bytes).toBe(40 * MB);
    expect(row.recording_key).toMatch(new RegExp(`^suite-z/\\d{4}/\\d{2}/${id}\\.m4a$`));
    const stored = await s3.object(row.recording_key!);
    expect(stored?.contentType).toBe('audio/mp4');
    expect(createHash('sha256').update(stored!.bytes).digest('hex')).toBe(served.sha256);
  });

  it('stops a file that grows past the limit, aborts its multipart upload and fails the record with the reason', async () => {
    const path = '/rec/too-large';
    zoom.serve(path, { bytes: MAX_MEETING_AUDIO_BYTES + 40 * MB, head: M4A_HEAD, authorization: 'Bearer zoom-download-token', declareLength: false });
    const id = await announce(path);
    const row = await imported(id);
    expect(row).toEqual({
      status: 'failed',
      failure_reason: `the meeting's audio file is larger than ${MAX_MEETING_AUDIO_BYTES} bytes`,
      recording_key: null,
      recording_bytes: null,
    });
    const served = await zoom.served(path)!;
    expect(served.cut).toBe(true);
    expect(served.sent).toBeLessThan(MAX_MEETING_AUDIO_BYTES + 40 * MB);
    const ofThisRecord = s3.requests.filter((r) => r.path.includes(id));
    // Parts were uploaded as the file arrived, then the upload was aborted: nothing is kept.
    expect(ofThisRecord.some((r) => r.method === 'PUT' && r.path.includes('partNumber='))).toBe(true);
    expect(ofThisRecord.some((r) => r.method === 'DELETE' && r.path.includes('uploadId='))).toBe(true);
    const listing = await (await fetch(`${s3.endpoint}/${s3.bucket}?prefix=suite-z`)).text();
    expect(listing).not.toContain(id);
  });

  it('refuses an announced length over the limit without uploading anything', async () => {
    const path = '/rec/announced';
    zoom.serve(path, { bytes: 200 * MB, head: M4A_HEAD, authorization: 'Bearer zoom-download-token' });
    const id = await announce(path);
    expect(await imported(id)).toMatchObject({ status: 'failed', failure_reason: `the meeting's audio file is larger than ${MAX_MEETING_AUDIO_BYTES} bytes` });
    expect((await zoom.served(path)!).cut).toBe(true);
    expect(s3.requests.filter((r) => r.path.includes(id))).toEqual([]);
  });
});
