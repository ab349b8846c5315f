import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { Database, PlatformRuntime } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { parseSendRequest } from '../domain/send-request';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { ChannelAdapters } from './channel-adapter.port';
import { PendingSendSweeper } from './pending-send.sweeper';
import { SendService } from '../channels/chat-app/send.service';
import { OutboundDispatcher } from './dispatcher';
import { ChatAppAdapter } from '../channels/chat-app/chat-app.adapter';

let chat: ChatLiteTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;

beforeAll(async () => {
  chat = await startChatLiteTestApp({ PROVIDER_TIMEOUT_MS: '2000' });
  ({ app, runtime } = chat);
});
afterAll(() => chat.close());

const events = (ctx: RequestContext) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox WHERE organization_id = $1 AND source = 'messaging' ORDER BY seq`,
      [ctx.organizationId],
    ),
  );

describe('sends are stored before the provider is called', () => {
  it('should hold a committed PENDING message while the provider works, then SENT with message.sent only', async () => {
    const t = await chat.newTenant();
    const to = chat.newNumber();
    let during: Promise<{ status: string; content: string }[]> | undefined;
    chat.provider.script = (call) => {
      if (call.body.UOWCHAT.receivers[0].mobileNum !== to) return undefined;
      during = chat.rows(t, 'SELECT status, content FROM messages');
      return { status: 200, body: { status: true, message: 'Message sent', external_id: `ext-${to}` }, delayMs: 100 };
    };
    const res = await chat.send(t.key, { to, message: 'in flight', organizationId: t.ctx.organizationId });
    chat.provider.script = () => undefined;
    expect(res.statusCode).toBe(200);
    expect(await during).toEqual([{ status: 'PENDING', content: 'in flight' }]);
    expect(await chat.rows(t, 'SELECT status, external_id FROM messages')).toEqual([{ status: 'SENT', external_id: `ext-${to}` }]);
    expect((await events(t.ctx)).map((e) => e.type)).toEqual(['conversation.created', 'message.sent']);
  });

  it('should keep the message, PENDING, when the write after the provider accepted it fails', async () => {
    const t = await chat.newTenant();
    const to = chat.newNumber();
    // The second transaction of the send (after the provider call) fails, as a lost database would.
    let transactions = 0;
    const failing = Object.create(runtime.db) as Database;
    failing.inTenant = (ctx, work) => (++transactions === 2 ? Promise.reject(new Error('database went away')) : runtime.db.inTenant(ctx, work));
    const adapters = app.get(ChannelAdapters);
    const dispatcher = new OutboundDispatcher(failing, adapters, { gapMinMs: 0, gapMaxMs: 0 });
    const service = new SendService(app.get(ContactService), app.get(OrganizationSettings), dispatcher, failing, adapters);
    await expect(service.send(t.ctx, parseSendRequest({ to, message: 'accepted, then?', organizationId: t.ctx.organizationId }))).rejects.toThrow(
      'database went away',
    );
    // Transactions: the PENDING write, then the failed finish (a send to a number has no target to check).
    expect(transactions).toBe(2);
    expect(chat.provider.callsTo(to)).toHaveLength(1);
    expect(await chat.rows(t, 'SELECT status, content FROM messages')).toEqual([{ status: 'PENDING', content: 'accepted, then?' }]);
    expect((await events(t.ctx)).map((e) => e.type)).toEqual(['conversation.created']);
  });

  it('should check the organization and its key before writing anything (404, no rows)', async () => {
    const t = await createTestTenant(app);
    const res = await chat.send(t.key, { to: chat.newNumber(), message: 'no key', organizationId: t.ctx.organizationId });
    expect(res.statusCode).toBe(404);
    expect(await chat.rows(t, 'SELECT id FROM messages')).toEqual([]);
    expect(await chat.rows(t, 'SELECT id FROM contacts')).toEqual([]);
  });
});

describe('PendingSendSweeper', () => {
  // A send whose process "dies" after the PENDING write: the provider call never returns normally.
  const crashingSend = (t: TestTenant, to: string) => {
    const dying = { send: async () => Promise.reject(new Error('process died')) };
    const adapters = new ChannelAdapters([new ChatAppAdapter(dying, app.get(OrganizationSettings), app.get(ContactService))]);
    const dispatcher = new OutboundDispatcher(runtime.db, adapters, { gapMinMs: 0, gapMaxMs: 0 });
    const service = new SendService(app.get(ContactService), app.get(OrganizationSettings), dispatcher, runtime.db, adapters);
    return service.send(t.ctx, parseSendRequest({ to, message: 'lost?', organizationId: t.ctx.organizationId }));
  };

  it('should leave a crashed send PENDING and visible, then fail it as interrupted once stale, once', async () => {
    const t = await chat.newTenant();
    const other = await chat.newTenant();
    await expect(crashingSend(t, chat.newNumber())).rejects.toThrow('process died');
    expect(await chat.rows(t, 'SELECT status, content FROM messages')).toEqual([{ status: 'PENDING', content: 'lost?' }]);

    let now = new Date();
    const sweeper = new PendingSendSweeper(runtime.db, { staleAfterMs: 10 * 60_000, now: () => now });
    // Young PENDING rows may be sends in progress: left alone.
    const sentMeanwhile = await chat.send(other.key, { to: chat.newNumber(), message: 'fine', organizationId: other.ctx.organizationId });
    expect(sentMeanwhile.statusCode).toBe(200);
    await sweeper.sweep();
    expect(await chat.rows(t, 'SELECT status FROM messages')).toEqual([{ status: 'PENDING' }]);

    now = new Date(Date.now() + 11 * 60_000);
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
    const [message] = await chat.rows<{ status: string; error: string; metadata: Record<string, unknown> }>(t, 'SELECT status, error, metadata FROM messages');
    expect(message).toMatchObject({ status: 'FAILED', error: 'interrupted', metadata: { failure_reason: 'interrupted' } });
    const failed = (await events(t.ctx)).filter((e) => e.type === 'message.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload).toMatchObject({ reason: 'interrupted', message: { status: 'FAILED', organization_id: t.ctx.organizationId } });
    // The other organization's finished send is untouched; a second sweep finds nothing of t.
    expect(await chat.rows(other, 'SELECT status FROM messages')).toEqual([{ status: 'SENT' }]);
    await sweeper.sweep();
    expect((await events(t.ctx)).filter((e) => e.type === 'message.failed')).toHaveLength(1);
  });

  it('should not touch a row the send finished, even when stale', async () => {
    const t = await chat.newTenant();
    const res = await chat.send(t.key, { to: chat.newNumber(), message: 'done', organizationId: t.ctx.organizationId });
    expect(res.statusCode).toBe(200);
    const sweeper = new PendingSendSweeper(runtime.db, { staleAfterMs: 0, now: () => new Date(Date.now() + 60_000) });
    await sweeper.sweep();
    expect(await chat.rows(t, 'SELECT status FROM messages')).toEqual([{ status: 'SENT' }]);
  });
});
