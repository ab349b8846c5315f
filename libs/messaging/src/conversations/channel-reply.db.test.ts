import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startInboundTestApp } from '../testing/inbound-test-app';
import { newAccountSid, newAuthToken } from '../testing/sms-peers';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

// A conversation with a new contact on a new channel account of `kind`.
async function conversationOn(t: TestTenant, kind: string, fields: object = {}): Promise<string> {
  const payload = { kind, name: kind, ...fields };
  const created = await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload });
  expect(created.statusCode).toBe(201);
  const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Dana', phones: [`+2010${String(Math.random()).slice(2, 10)}`] });
  const [row] = await runtime.db.inTenant(t.ctx, (tx) =>
    tx.query<{ id: string; channel_kind: string }>(
      `INSERT INTO conversations (organization_id, contact_id, channel_account_id) VALUES (app_org_id(), $2, $1) RETURNING id, channel_kind`,
      [created.json().channel_account.id, contact.id],
    ),
  );
  expect(row.channel_kind).toBe(kind);
  return row.id;
}

describe('the reply path asks the channel adapter', () => {
  it('should refuse SMS with a 422 naming the kind, before anything is stored', async () => {
    const t = await createTestTenant(app);
    const fromNumber = `+1415555${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}`;
    const sms = await conversationOn(t, 'sms', { account_sid: newAccountSid(), auth_token: newAuthToken(), from_number: fromNumber });
    const refused = await app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${sms}/reply`,
      headers: t.key,
      payload: { message: 'hello' },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'channel.reply_not_allowed', details: { channel_kind: 'sms' } });
    const [{ n }] = await runtime.db.inTenant(t.ctx, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM messages'));
    expect(n).toBe(0);
    const view = (await app.inject({ method: 'GET', url: `/functions/v1/messaging/conversations/${sms}`, headers: t.key })).json();
    expect(view).toMatchObject({ channel_kind: 'sms', window_closes_at: null });
  });

  it('should answer 503 on the Meta webhook while the Meta app is not configured', async () => {
    const handshake = await app.inject({ method: 'GET', url: '/functions/v1/meta-webhook?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1' });
    expect(handshake.statusCode).toBe(503);
    const post = await app.inject({
      method: 'POST',
      url: '/functions/v1/meta-webhook',
      headers: { 'content-type': 'application/json' },
      payload: '{"object":"page","entry":[]}',
    });
    expect(post.statusCode).toBe(503);
  });
});
