import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { zoomSignature } from '@engage/calls';
import { LoopbackProviders, wavSaying } from '@engage/calls/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver, startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

// Zoom's meeting recordings end to end in the composed app (role 'all': jobs and relay run): the
// per-organization webhook's handshake and signature, then recording.completed → the audio file
// downloaded over HTTPS with the event's token → stored → a meeting call record through the
// pipeline (loopback transcription and AI) → zoom.recording.completed in the outbox.
describe('Zoom meeting recordings', () => {
  jest.setTimeout(60_000);
  const cert = createSelfSignedCert();
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let zoom: HttpsReceiver;
  let peer: LoopbackProviders;
  let a: TestTenant;
  let b: TestTenant;
  const audio = wavSaying('thank you for joining, we will send the proposal on monday');

  beforeAll(async () => {
    peer = await new LoopbackProviders().start();
    zoom = await startHttpsReceiver(cert, (request, res) => {
      if (request.headers.authorization !== 'Bearer zoom-download-token') return { status: 401, body: '{"code":124,"message":"Invalid access token."}' };
      res.writeHead(200, { 'content-type': 'audio/mp4' }).end(audio);
      return { status: 200 };
    });
    runtime = await startTestRuntime({
      role: 'all',
      migrations: CONTEXT_MIGRATIONS,
      env: {
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: cert.certPath,
        TRANSCRIBE_BASE_URL: peer.baseUrl,
        AI_BASE_URL: peer.baseUrl,
        JOBS_POLL_MS: '50',
      },
    });
    app = await createApiApp(runtime);
    a = await createTestTenant(app, 'Org A');
    b = await createTestTenant(app, 'Org B');
    await app.get(OrganizationService).setSetting(a.ctx.organizationId, 'suite_id', 'suite-a');
    for (const [t, token] of [
      [a, 'secret-token-of-org-a'],
      [b, 'secret-token-of-org-b'],
    ] as const) {
      const set = await app.inject({ method: 'PUT', url: '/functions/v1/zoom-settings', headers: t.session, payload: { secret_token: token } });
      expect(set.statusCode).toBe(200);
    }
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    await zoom.close();
    await peer.stop();
  });

  const send = (orgId: string, body: string, opts: { secret?: string; timestamp?: number; signature?: string } = {}) => {
    const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
    const signature = opts.signature ?? zoomSignature(opts.secret ?? 'secret-token-of-org-a', ts, Buffer.from(body));
    return app.inject({
      method: 'POST',
      url: `/functions/v1/zoom-webhook/${orgId}`,
      payload: body,
      headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-signature': signature },
    });
  };

  it('answers the URL validation with the HMAC of the plain token under the organization’s own secret', async () => {
    const body = JSON.stringify({ event: 'endpoint.url_validation', payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: Date.now() });
    const res = await send(a.ctx.organizationId, body);
    expect(res.statusCode).toBe(200);
    const { createHmac } = await import('node:crypto');
    const encryptedToken = createHmac('sha256', 'secret-token-of-org-a').update('qgg8vlvZRS6UYooatFL8Aw').digest('hex');
    expect(res.json()).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken });
  });

  it('refuses an altered byte, a stale timestamp, another organization’s secret, and unknown or unconfigured organizations', async () => {
    const body = JSON.stringify({ event: 'meeting.started', payload: { object: { id: 1 } } });
    expect((await send(a.ctx.organizationId, body)).json()).toEqual({ received: true, ignored: true });
    const signature = zoomSignature('secret-token-of-org-a', String(Math.floor(Date.now() / 1000)), Buffer.from(body));
    const altered = await send(a.ctx.organizationId, body.replace('started', 'startes'), { signature });
    expect([altered.statusCode, altered.json().code]).toEqual([401, 'zoom.invalid_signature']);
    const stale = await send(a.ctx.organizationId, body, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect([stale.statusCode, stale.json().code]).toEqual([401, 'zoom.stale_timestamp']);
    const other = await send(a.ctx.organizationId, body, { secret: 'secret-token-of-org-b' });
    expect(other.statusCode).toBe(401);
    expect((await send(b.ctx.organizationId, body, { secret: 'secret-token-of-org-b' })).statusCode).toBe(200);
    const url = `/functions/v1/zoom-webhook/${a.ctx.organizationId}`;
    const missing = await app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json' } });
    expect(missing.statusCode).toBe(401);
    const c = await createTestTenant(app, 'Org C without Zoom');
    expect((await send(c.ctx.organizationId, body)).statusCode).toBe(404);
    expect((await send(randomUUID(), body)).statusCode).toBe(404);
    expect((await send('not-a-uuid', body)).statusCode).toBe(404);
  });

  it('refuses bodies that are not JSON events with a 4xx', async () => {
    expect((await send(a.ctx.organizationId, 'not json')).statusCode).toBe(400);
    expect((await send(a.ctx.organizationId, '[1,2]')).statusCode).toBe(400);
    expect((await send(a.ctx.organizationId, JSON.stringify({ event: 'endpoint.url_validation', payload: {} }))).statusCode).toBe(400);
    expect((await send(a.ctx.organizationId, JSON.stringify({ event: 'recording.completed', payload: {} }))).statusCode).toBe(400);
    const ts = String(Math.floor(Date.now() / 1000));
    const text = await app.inject({
      method: 'POST',
      url: `/functions/v1/zoom-webhook/${a.ctx.organizationId}`,
      payload: 'x=1',
      headers: { 'content-type': 'text/plain', 'x-zm-request-timestamp': ts, 'x-zm-signature': zoomSignature('secret-token-of-org-a', ts, Buffer.from('x=1')) },
    });
    expect(text.statusCode).toBe(415);
    const big = await send(a.ctx.organizationId, JSON.stringify({ event: 'x', pad: 'x'.repeat(300_000) }));
    expect(big.statusCode).toBe(413);
  });

  it('imports recording.completed: the audio downloaded with the token, stored, its call record processed, zoom.recording.completed emitted', async () => {
    const meetingUuid = `uuid-${randomUUID()}`;
    const event = {
      event: 'recording.completed',
      event_ts: Date.now(),
      download_token: 'zoom-download-token',
      payload: {
        account_id: 'acc',
        object: {
          uuid: meetingUuid,
          id: 84759302112,
          host_id: 'host-1',
          host_email: 'host@example.com',
          topic: 'Quarterly review',
          start_time: '2026-11-24T10:00:00Z',
          duration: 42,
          share_url: 'https://zoom.example/rec/share/abc',
          recording_files: [
            {
              id: 'f-video',
              file_type: 'MP4',
              file_extension: 'MP4',
              recording_type: 'shared_screen_with_speaker_view',
              download_url: `${zoom.url}/rec/download/video`,
            },
            {
              id: 'f-audio',
              file_type: 'M4A',
              file_extension: 'M4A',
              recording_type: 'audio_only',
              file_size: audio.length,
              download_url: `${zoom.url}/rec/download/audio`,
            },
          ],
        },
      },
    };
    const res = await send(a.ctx.organizationId, JSON.stringify(event));
    expect(res.statusCode).toBe(200);
    const [id] = res.json().call_record_ids as string[];
    expect(res.json().call_record_ids).toHaveLength(1);
    // Zoom delivering the same event again adds nothing.
    expect((await send(a.ctx.organizationId, JSON.stringify(event))).json()).toEqual({ received: true, call_record_ids: [] });

    let row: Record<string, unknown> | undefined;
    for (let i = 0; i < 400 && row?.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const read = await app.inject({ method: 'GET', url: `/rest/v1/call_records?id=eq.${id}&select=*`, headers: a.session });
      row = read.json()[0];
    }
    expect(row).toMatchObject({
      status: 'completed',
      source: 'meeting',
      duration_seconds: 2520,
      notes: 'Quarterly review',
      agent_identifier: 'host@example.com',
      transcription: 'thank you for joining, we will send the proposal on monday',
      recording_content_type: 'audio/mp4',
      recording_bytes: audio.length,
      meeting: expect.objectContaining({
        meeting_id: '84759302112',
        meeting_uuid: meetingUuid,
        topic: 'Quarterly review',
        host_id: 'host-1',
        recording_type: 'audio_only',
      }),
    });
    expect(row!.recording_key).toMatch(new RegExp(`^suite-a/\\d{4}/\\d{2}/${id}\\.m4a$`));
    expect((row!.analysis as Record<string, unknown>).analyser).toBe('ai');
    expect(zoom.received.filter((r) => r.path === '/rec/download/audio').map((r) => r.headers.authorization)).toEqual(['Bearer zoom-download-token']);
    expect(zoom.received.some((r) => r.path.includes('video'))).toBe(false);
    // Another organization does not see it.
    expect((await app.inject({ method: 'GET', url: `/rest/v1/call_records?id=eq.${id}`, headers: b.session })).json()).toEqual([]);

    const [emitted] = await runtime.db.systemQuery<{ payload: { recording: Record<string, unknown> } }>(
      `SELECT payload FROM outbox WHERE type = 'zoom.recording.completed' AND aggregate_id = $1`,
      [id],
    );
    expect(emitted.payload.recording).toMatchObject({
      call_record_id: id,
      meeting_id: '84759302112',
      topic: 'Quarterly review',
      host_email: 'host@example.com',
    });
  });

  it('fails the meeting record with its reason when the organization has no suite id or Zoom refuses the download', async () => {
    const event = (token: string, uuid: string) =>
      JSON.stringify({
        event: 'recording.completed',
        download_token: token,
        payload: {
          object: {
            uuid,
            id: 111,
            topic: 'Standup',
            recording_files: [{ id: 'a', file_type: 'M4A', recording_type: 'audio_only', download_url: `${zoom.url}/rec/a` }],
          },
        },
      });
    const statusOf = async (id: string) => {
      for (let i = 0; i < 300; i++) {
        const read = 'SELECT status, failure_reason FROM call_records WHERE id = $1';
        const [row] = await runtime.db.systemQuery<{ status: string; failure_reason: string | null }>(read, [id]);
        if (row.status !== 'received') return row;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('still received');
    };
    const noSuite = await send(b.ctx.organizationId, event('zoom-download-token', `u-${randomUUID()}`), { secret: 'secret-token-of-org-b' });
    expect(await statusOf(noSuite.json().call_record_ids[0])).toEqual({
      status: 'failed',
      failure_reason: 'the organization has no suite id (organization setting suite_id): the recording cannot be stored',
    });
    const refused = await send(a.ctx.organizationId, event('expired-token', `u-${randomUUID()}`));
    expect(await statusOf(refused.json().call_record_ids[0])).toEqual({ status: 'failed', failure_reason: "Zoom's download answered 401" });
  });

  it('keeps the secret token sealed at rest', async () => {
    const read = `SELECT settings->>'zoom_secret_token' AS stored FROM organizations WHERE id = $1`;
    const [row] = await runtime.db.systemQuery<{ stored: string }>(read, [a.ctx.organizationId]);
    expect(row.stored).toContain('sealed');
    expect(row.stored).not.toContain('secret-token-of-org-a');
  });

  it('lets OWNER and ADMIN set and clear the secret token, never showing it; others get 403 and bad input 400', async () => {
    const shown = await app.inject({ method: 'GET', url: '/functions/v1/zoom-settings', headers: a.session });
    expect(shown.json()).toEqual({ secret_token_set: true, webhook_path: `/functions/v1/zoom-webhook/${a.ctx.organizationId}` });
    expect(shown.body).not.toContain('secret-token-of-org-a');
    for (const payload of [{}, { secret_token: 'short' }, { secret_token: 'has spaces in it' }, { secret_token: 42 }]) {
      expect((await app.inject({ method: 'PUT', url: '/functions/v1/zoom-settings', headers: a.session, payload })).statusCode).toBe(400);
    }
    expect((await app.inject({ method: 'GET', url: '/functions/v1/zoom-settings' })).statusCode).toBe(401);
    const email = `agent.${randomUUID()}@example.com`;
    await app.get(OrganizationService).createUser({ organizationId: a.ctx.organizationId, email, password: 'agent password 1', role: 'AGENT' });
    const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password: 'agent password 1' } });
    const agent = { authorization: `Bearer ${login.json().access_token}` };
    const byAgent = await app.inject({ method: 'PUT', url: '/functions/v1/zoom-settings', headers: agent, payload: { secret_token: 'agent-chosen-token' } });
    expect(byAgent.statusCode).toBe(403);

    const c = await createTestTenant(app, 'Org C');
    await app.inject({ method: 'PUT', url: '/functions/v1/zoom-settings', headers: c.session, payload: { secret_token: 'temporary-token-c' } });
    const body = JSON.stringify({ event: 'meeting.ended' });
    expect((await send(c.ctx.organizationId, body, { secret: 'temporary-token-c' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/functions/v1/zoom-settings', headers: c.session })).statusCode).toBe(204);
    expect((await send(c.ctx.organizationId, body, { secret: 'temporary-token-c' })).statusCode).toBe(404);
  });
});
