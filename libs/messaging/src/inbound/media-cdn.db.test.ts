import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp, startTestS3Server, type TestS3Server } from '@engage/platform/testing';
import { messagingMigrations, messagingQueues } from '../index';
import { MessagingModule } from '../messaging.module';
import { RecordingProvider } from '../testing/recording-provider';
import { waitFor } from '../testing/wait-for';

// With CDN_URL set, inbound media are re-hosted on the S3-compatible CDN (a real one on loopback).
const provider = new RecordingProvider();
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(2048, 7)]);
const mediaHost = createServer((req, res) =>
  req.url === '/photo.jpg' ? res.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG) : res.writeHead(404).end(),
);
let mediaUrl = '';
let s3: TestS3Server;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

beforeAll(async () => {
  await provider.start();
  s3 = await startTestS3Server('engage-media');
  await new Promise<void>((resolve) => mediaHost.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(mediaHost.address() as AddressInfo).port}`;
  ({ app, runtime, close } = await startTestApp([MessagingModule], {
    role: 'all',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { NOTIFY_URL: provider.url, INBOUND_POLL_MS: '50', OUTBOUND_ALLOW_HOSTS: '127.0.0.1', ...s3.env },
    jobs: { queues: messagingQueues },
  }));
});
afterAll(async () => {
  await close();
  await provider.stop();
  await s3.close();
  mediaHost.closeAllConnections();
  await new Promise((resolve) => mediaHost.close(resolve));
});

describe('inbound media with CDN_URL set', () => {
  it('should re-host them on the CDN as media/<organization>/<sha256>.<ext>, the message pointing at the object', async () => {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'provider-key-1');
    const channel = { kind: 'chat_app', name: 'Main line' };
    const created = await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: tenant.key, payload: channel });
    const { channel_account, inbound_token } = created.json();
    const media = [{ url: `${mediaUrl}/photo.jpg`, kind: 'image' }];
    const res = await app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${channel_account.id}`,
      headers: { 'x-channel-token': inbound_token },
      payload: { type: 'message', id: 'cdn-1', from: '201099887766', media },
    });
    expect(res.statusCode).toBe(200);

    type Row = { media: { url: string; original_url: string; rehost_error?: string }[] };
    const rows = () => runtime.db.inTenant(tenant.ctx, (tx) => tx.query<Row>('SELECT media FROM messages'));
    const [message] = await waitFor(async () => ((await rows()).length ? rows() : undefined));
    const key = `media/${tenant.ctx.organizationId}/${createHash('sha256').update(JPEG).digest('hex')}.jpg`;
    expect(message.media).toEqual([{ url: `${s3.env.CDN_URL}/${key}`, kind: 'image', original_url: media[0].url }]);
    // The server received a signed PUT of the bytes (it refuses bad signatures) and serves them.
    const sent = s3.requests.filter((r) => r.path.startsWith(`/engage-media/${key}`));
    expect(sent.map((r) => `${r.method} ${r.status}`)).toEqual(['PUT 200']);
    const stored = await s3.object(key);
    expect(stored?.bytes.equals(JPEG)).toBe(true);
    expect(stored?.contentType).toBe('image/jpeg');
    // The api's route serves the local stand-in only: nothing of the CDN's.
    const name = key.split('/')[2];
    expect((await app.inject({ method: 'GET', url: `/functions/v1/messaging/media/${tenant.ctx.organizationId}/${name}` })).statusCode).toBe(404);
  });
});
