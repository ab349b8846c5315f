import type { TestTenant } from '@engage/identity/testing';
import { ScheduledSendPass, type ScheduledSendOptions } from '../outbound/scheduled-send.job';
import { SCHEDULED_DELIVERY, type ScheduledDelivery } from '../outbound/scheduled-delivery';
import { InboundProcessor } from '../inbound/inbound-processor';
import { startChatLiteTestApp } from './chat-lite-test-app';

// The messaging context in an api process with a recording chat-app provider (no job runner: a test
// runs the scheduled-send pass itself, as many as it likes, as several workers would), and the steps
// the scheduled-send tests share.
export async function startScheduledTestApp() {
  const chat = await startChatLiteTestApp({ ORG_MAX_CONCURRENT_REQUESTS: '50', ORG_MAX_QUEUED_REQUESTS: '50', ORG_QUEUE_WAIT_MS: '20000' });
  const { app, runtime } = chat;
  const json = (headers: Record<string, string>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { ...headers, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });

  // A tenant with a chat-app channel whose inbound token we hold, and a conversation with a new
  // customer (made by a send to their number), where the customer can answer.
  const conversation = async (tenant?: TestTenant) => {
    const t = tenant ?? (await chat.newTenant());
    const channel = await json(t.key, 'POST', '/functions/v1/messaging/channel-accounts', { kind: 'chat_app', name: 'Line' });
    const { channel_account: account, inbound_token: token } = channel.json() as { channel_account: { id: string }; inbound_token: string };
    const number = chat.newNumber();
    const sent = await json(t.key, 'POST', '/functions/v1/chat-lite-send', { to: number, message: 'Hello', organizationId: t.ctx.organizationId });
    if (sent.statusCode !== 200) throw new Error(`send failed: ${sent.body}`);
    const conversationId: string = sent.json().conversationId;
    let seq = 0;
    // The customer writes; the inbound worker's processing stores it (as a worker would).
    const customerWrites = async (text = 'Actually, never mind') => {
      const posted = await app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${account.id}`,
        headers: { 'x-channel-token': token },
        payload: { type: 'message', id: `in-${conversationId}-${++seq}`, from: number, text },
      });
      if (posted.statusCode !== 200) throw new Error(`inbound refused: ${posted.body}`);
      return app.get(InboundProcessor).processDue();
    };
    return { t, conversationId, number, customerWrites };
  };

  const schedule = (headers: Record<string, string>, conversationId: string, body: object) =>
    json(headers, 'POST', `/functions/v1/messaging/conversations/${conversationId}/scheduled-messages`, body);

  // Due now: made due in the database (send_at must be in the future when it is written).
  const makeDue = (id: string) =>
    runtime.db.asSystem((tx) => tx.query(`UPDATE scheduled_messages SET send_at = now() - interval '1 second' WHERE id = $1`, [id]));

  const statusOf = async (id: string) =>
    (
      await runtime.db.asSystem((tx) =>
        tx.query<{ status: string; error: string | null; sent_message_ids: string[] }>(
          `SELECT status, error, sent_message_ids FROM scheduled_messages WHERE id = $1`,
          [id],
        ),
      )
    )[0];

  // A pass as one worker runs it (its own lanes), with the module's delivery.
  const pass = (options: Partial<ScheduledSendOptions> = {}, now?: () => number) =>
    new ScheduledSendPass(runtime.db, app.get<ScheduledDelivery>(SCHEDULED_DELIVERY, { strict: false }), options, now);

  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

  return { ...chat, json, conversation, schedule, makeDue, statusOf, pass, inSeconds };
}

export type ScheduledTestApp = Awaited<ReturnType<typeof startScheduledTestApp>>;
