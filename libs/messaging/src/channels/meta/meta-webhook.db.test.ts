import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { metaBody } from '../../testing/meta-peers';
import { type MetaTestApp, newMetaId as newId, startMetaTestApp } from '../../testing/meta-test-app';

const SECRET = 'meta-app-secret-for-tests';
const VERIFY = 'verify-token-for-tests';
let meta: MetaTestApp;
let app: NestFastifyApplication;
let base = '';

beforeAll(async () => {
  meta = await startMetaTestApp({ secret: SECRET, verifyToken: VERIFY });
  ({ app, base } = meta);
});
afterAll(() => meta.close());

const text = (psid: string, mid: string, body: string, timestamp = Date.now()) => ({
  sender: { id: psid },
  recipient: { id: 'page' },
  timestamp,
  message: { mid, text: body },
});

describe('GET /functions/v1/meta-webhook (subscription handshake)', () => {
  it('should echo the challenge for the right verify token only', async () => {
    const ok = await fetch(`${base}/functions/v1/meta-webhook?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    for (const query of [
      `hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`,
      `hub.mode=unsubscribe&hub.verify_token=${VERIFY}&hub.challenge=1`,
      `hub.mode=subscribe&hub.challenge=1`,
      '',
    ]) {
      expect((await fetch(`${base}/functions/v1/meta-webhook?${query}`)).status).toBe(403);
    }
  });
});

describe('POST /functions/v1/meta-webhook', () => {
  it('should refuse unsigned and wrongly signed requests with 401 before storing anything, and bad bodies with 4xx', async () => {
    const { t, accountId } = await meta.connectAccount();
    const body = metaBody('page', accountId, [text('psid-1', `m_${newId()}`, 'hi')]);
    expect((await meta.send(body, 'unsigned')).status).toBe(401);
    expect((await meta.send(body, 'wrong_secret')).status).toBe(401);
    const tampered = await fetch(`${base}/functions/v1/meta-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) },
      body: JSON.stringify(body),
    });
    expect(tampered.status).toBe(401);
    expect(await meta.rows(t, 'SELECT 1 FROM inbound_events')).toHaveLength(0);
    expect((await meta.send(null, 'signed', '{not json')).status).toBe(400);
    expect((await meta.send({ hello: 'world' })).status).toBe(400);
    expect((await meta.send([1, 2])).status).toBe(400);
    const huge = await meta.send(null, 'signed', JSON.stringify({ object: 'page', entry: [], pad: 'x'.repeat(1024 * 1024) }));
    expect(huge.status).toBe(413);
    const plain = await fetch(`${base}/functions/v1/meta-webhook`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect(plain.status).toBeLessThan(500);
  });

  it('should store a message before the 200, create the contact by page-scoped id, open the window, and store a replay once', async () => {
    const { t, accountId, channelId } = await meta.connectAccount();
    const mid = `m_${newId()}`;
    const wrote = Date.now() - 60_000;
    const body = metaBody('page', accountId, [text('psid-42', mid, 'Is this in stock?', wrote)]);
    const first = await meta.send(body);
    expect(first).toEqual({ status: 200, body: { received: true, stored: 1 } });
    expect(await meta.rows(t, 'SELECT 1 FROM inbound_events WHERE processed_at IS NULL')).toHaveLength(1);
    expect((await meta.send(body)).status).toBe(200); // replayed
    await meta.drain();
    const messages = await meta.rows<{ content: string; direction: string; external_id: string; channel_account_id: string }>(
      t,
      'SELECT content, direction, external_id, channel_account_id FROM messages',
    );
    expect(messages).toEqual([{ content: 'Is this in stock?', direction: 'INBOUND', external_id: mid, channel_account_id: channelId }]);
    const [conversation] = await meta.rows<{ channel_kind: string; window_closes_at: Date; unread_count: number }>(
      t,
      'SELECT channel_kind, window_closes_at, unread_count FROM conversations',
    );
    expect(conversation).toMatchObject({ channel_kind: 'messenger', unread_count: 1 });
    expect(conversation.window_closes_at.getTime()).toBe(Math.floor(wrote) + 24 * 3_600_000);
    expect(await meta.rows(t, 'SELECT external_user_id FROM channel_contacts')).toEqual([{ external_user_id: 'psid-42' }]);
    expect(await meta.events(t, 'message.received')).toHaveLength(1);

    // A second message of the same customer: same contact and conversation.
    await meta.send(metaBody('page', accountId, [text('psid-42', `m_${newId()}`, 'Hello?')]));
    await meta.drain();
    expect(await meta.rows(t, 'SELECT DISTINCT contact_id, conversation_id FROM messages')).toHaveLength(1);
  });

  it('should take Instagram messages with media and postbacks, and drop events of unknown accounts with a 200', async () => {
    const { t, accountId } = await meta.connectAccount('instagram');
    const media = {
      sender: { id: 'igsid-7' },
      recipient: { id: accountId },
      timestamp: Date.now(),
      message: { mid: `ig_${newId()}`, attachments: [{ type: 'image', payload: { url: 'https://127.0.0.1:1/photo.jpg' } }] },
    };
    const postback = {
      sender: { id: 'igsid-7' },
      recipient: { id: accountId },
      timestamp: Date.now(),
      postback: { mid: `pb_${newId()}`, title: 'Talk to a human', payload: 'HUMAN' },
    };
    expect((await meta.send(metaBody('instagram', accountId, [media, postback]))).body).toEqual({ received: true, stored: 2 });
    expect((await meta.send(metaBody('instagram', '999000111', [media]))).body).toEqual({ received: true, stored: 0 });
    // A page id of an Instagram account is not a Messenger page.
    expect((await meta.send(metaBody('page', accountId, [media]))).body).toEqual({ received: true, stored: 0 });
    await meta.drain();
    const stored = await meta.rows<{ content: string; media: { kind: string; original_url: string }[]; metadata: Record<string, unknown> }>(
      t,
      'SELECT content, media, metadata FROM messages ORDER BY created_at',
    );
    expect(stored.map((m) => [m.content, m.media.map((x) => x.kind), m.metadata.postback ?? null])).toEqual([
      ['', ['image'], null],
      ['Talk to a human', [], 'HUMAN'],
    ]);
    expect(await meta.rows(t, 'SELECT channel_kind FROM conversations')).toEqual([{ channel_kind: 'instagram' }]);
  });

  it('should answer each of many concurrent requests with its own outcome (requests stored together)', async () => {
    const { t, accountId } = await meta.connectAccount();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_v, i) => meta.send(metaBody('page', i % 4 === 0 ? '404404404' : accountId, [text(`c-${i % 7}`, `m_${newId()}`, `n${i}`)]))),
    );
    expect(answers.map((a) => a.body.stored)).toEqual(Array.from({ length: 40 }, (_v, i) => (i % 4 === 0 ? 0 : 1)));
    await meta.drain();
    expect(await meta.rows(t, 'SELECT 1 FROM messages')).toHaveLength(30);
  });

  it('should route each event to its own organization only', async () => {
    const a = await meta.connectAccount();
    const b = await meta.connectAccount();
    await meta.send({
      object: 'page',
      entry: [
        { id: a.accountId, messaging: [text('u1', `m_${newId()}`, 'to a')] },
        { id: b.accountId, messaging: [text('u1', `m_${newId()}`, 'to b')] },
      ],
    });
    await meta.drain();
    expect(await meta.rows(a.t, 'SELECT content FROM messages')).toEqual([{ content: 'to a' }]);
    expect(await meta.rows(b.t, 'SELECT content FROM messages')).toEqual([{ content: 'to b' }]);
    expect(await meta.rows(a.t, 'SELECT organization_id FROM channel_contacts')).toEqual([{ organization_id: a.t.ctx.organizationId }]);
  });
});

describe('echoes', () => {
  it('should keep a message the page sent from elsewhere as outbound, once, after giving the send path its turn', async () => {
    const { t, accountId } = await meta.connectAccount();
    await meta.send(metaBody('page', accountId, [text('psid-5', `m_${newId()}`, 'hello')]));
    const mid = `m_${newId()}`;
    const echo = {
      sender: { id: accountId },
      recipient: { id: 'psid-5' },
      timestamp: Date.now(),
      message: { mid, text: 'Answered from the page inbox', is_echo: true },
    };
    await meta.send(metaBody('page', accountId, [echo]));
    await meta.drain();
    expect(await meta.rows(t, "SELECT 1 FROM messages WHERE direction = 'OUTBOUND'")).toHaveLength(0);
    await meta.rows(t, 'UPDATE inbound_events SET next_attempt_at = now() WHERE processed_at IS NULL');
    await meta.drain();
    await meta.send(metaBody('page', accountId, [echo]));
    await meta.drain();
    expect(await meta.rows(t, "SELECT content, status, external_id FROM messages WHERE direction = 'OUTBOUND'")).toEqual([
      { content: 'Answered from the page inbox', status: 'SENT', external_id: mid },
    ]);
    expect(await meta.rows(t, 'SELECT DISTINCT conversation_id FROM messages')).toHaveLength(1);
    expect(await meta.events(t, 'message.sent')).toHaveLength(1);
  });
});

describe('Meta channel accounts', () => {
  it('should require the kind fields, keep the token sealed and never return it', async () => {
    const t = await createTestTenant(app);
    const post = (payload: object) => app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload });
    const token = `EAAG${'s'.repeat(40)}`;
    for (const bad of [
      { kind: 'messenger', name: 'P' },
      { kind: 'messenger', name: 'P', page_id: 'abc', page_access_token: token },
      { kind: 'messenger', name: 'P', page_id: '1' },
      { kind: 'instagram', name: 'I', page_id: '12', page_access_token: token },
      { kind: 'messenger', name: 'P', page_id: '1', page_access_token: 'short' },
      { kind: 'messenger', name: 'P', page_id: 5, page_access_token: token },
    ]) {
      expect((await post(bad)).statusCode).toBe(400);
    }
    const pageId = newId();
    const created = await post({ kind: 'messenger', name: 'Shop page', page_id: pageId, page_access_token: token });
    expect(created.statusCode).toBe(201);
    expect(JSON.stringify(created.json())).not.toContain(token);
    expect(created.json()).toMatchObject({ channel_account: { kind: 'messenger', external_account_id: pageId }, inbound_path: '/functions/v1/meta-webhook' });
    const [stored] = await meta.rows<{ access_token_sealed: string }>(t, 'SELECT access_token_sealed FROM channel_accounts');
    expect(stored.access_token_sealed).toMatch(/^v1:/);
    expect(stored.access_token_sealed).not.toContain(token);
    const listed = (await app.inject({ method: 'GET', url: '/functions/v1/messaging/channel-accounts', headers: t.key })).json();
    expect(JSON.stringify(listed)).not.toContain('v1:');
    // One page, one channel account, across organizations.
    const other = await createTestTenant(app);
    const taken = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: other.key,
      payload: { kind: 'messenger', name: 'P', page_id: pageId, page_access_token: token },
    });
    expect(taken.statusCode).toBe(409);

    // Deactivated: its events are dropped; another organization cannot touch it.
    const id = created.json().channel_account.id;
    // Its inbound events are verified by the app's signature: it has no inbound token to rotate.
    const rotate = await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${id}/rotate-token`, headers: t.key });
    expect(rotate.statusCode).toBe(400);
    expect(rotate.json().code).toBe('channel.no_inbound_token');
    expect((await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${id}/rotate-token`, headers: other.key })).statusCode).toBe(404);
    const patch = (id: string, key: TestTenant['key'], payload: object) =>
      app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${id}`, headers: key, payload });
    expect((await patch(id, other.key, { is_active: false })).statusCode).toBe(404);
    expect((await patch(id, t.key, { is_active: 'no' })).statusCode).toBe(400);
    expect((await patch('nope', t.key, { is_active: false })).statusCode).toBe(404);
    expect((await patch(id, t.key, { is_active: false })).json()).toMatchObject({ is_active: false });
    expect((await meta.send(metaBody('page', pageId, [text('u9', `m_${newId()}`, 'anyone?')]))).body).toEqual({ received: true, stored: 0 });
  });
});
