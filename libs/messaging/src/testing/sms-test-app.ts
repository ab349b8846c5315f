import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';
import { SmsApiFake } from './sms-peers';
import type { RequestContext } from '@engage/shared-kernel';
import type { MessageOrigin } from '../domain/message-origin';
import { OutboundDispatcher } from '../outbound/dispatcher';

// The public address the provider is given (a reverse proxy in front of the api, as in service).
export const SMS_PUBLIC_URL = 'https://engage.example.test';

// The messaging context listening on 127.0.0.1 with a Twilio-style fake as its SMS provider.
export async function startSmsTestApp() {
  const fake = new SmsApiFake(SMS_PUBLIC_URL);
  await fake.start();
  const started = await startTestApp([MessagingModule], {
    role: 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { PUBLIC_URL: SMS_PUBLIC_URL, SMS_API_URL: fake.url },
  });
  await started.app.listen(0, '127.0.0.1');
  const appBase = (await started.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  fake.listenAppAt(appBase);
  return {
    ...started,
    fake,
    appBase,
    close: async () => {
      await started.close();
      await fake.stop();
    },
  };
}

// A tenant with an SMS channel account the fake knows.
export async function smsChannel(app: NestFastifyApplication, fake: SmsApiFake, tenant?: TestTenant) {
  const t = tenant ?? (await createTestTenant(app));
  const { sid, token } = fake.account();
  const from = `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  const res = await app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: t.key,
    payload: { kind: 'sms', name: 'Campaigns', account_sid: sid, auth_token: token, from_number: from },
  });
  if (res.statusCode !== 201) throw new Error(`SMS channel not created: ${res.body}`);
  const id: string = res.json().channel_account.id;
  return { t, id, sid, token, from, created: res.json() };
}

export const tenantRows = <T = Record<string, unknown>>(runtime: PlatformRuntime, t: TestTenant, sql: string, params: unknown[] = []) =>
  runtime.db.inTenant(t.ctx, (tx) => tx.query<T>(sql, params));

export const outboxOf = (runtime: PlatformRuntime, t: TestTenant, type: string) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ payload: { message: { id: string; status: string; error: string | null; content: string }; from_status?: string } }>(
      `SELECT payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq`,
      [t.ctx.organizationId, type],
    ),
  );

export interface SmsSendInput {
  channelAccountId: string;
  contactId: string;
  text: string;
  origin: MessageOrigin;
  originId: string | null;
}

// An automated SMS to a contact, through the dispatcher as broadcasts and sequences send it: the
// contact's SMS conversation and the message in its final state (SENT or FAILED).
export async function sendSms(app: NestFastifyApplication, ctx: RequestContext, input: SmsSendInput) {
  const sent = await app
    .get(OutboundDispatcher)
    .send(
      ctx,
      { channelAccountId: input.channelAccountId, contactId: input.contactId },
      { message: input.text, mediaUrls: [], author: { origin: input.origin, originId: input.originId } },
    );
  return { conversationId: sent.conversation.id, message: sent.messages[0] };
}
