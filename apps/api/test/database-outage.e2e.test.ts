import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { DatabaseProxy, testAdminUrl } from '@engage/platform/testing';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startComposedApp } from './composed-app';

// PostgreSQL going away under the api (a restart, as the service sees it: connections cut, new
// ones refused): requests answer 503 with Retry-After, never 500, the change is told once each way,
// and everything answers again once the database is back.
describe('a database outage', () => {
  const proxy = new DatabaseProxy(testAdminUrl());
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void> = async () => undefined;
  let tenant: TestTenant;
  let channel: { id: string; token: string };
  const changes: boolean[] = [];

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp({ proxy }));
    tenant = await createTestTenant(app);
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: tenant.key,
      payload: { kind: 'chat_app', name: 'Line' },
    });
    channel = { id: created.json().channel_account.id, token: created.json().inbound_token };
    runtime.db.reachability.onChange((reachable) => changes.push(reachable));
  });
  afterAll(() => close());

  const read = () => app.inject({ method: 'GET', url: '/rest/v1/contacts?select=id', headers: tenant.session });
  const inbound = (n: number) =>
    app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${channel.id}`,
      headers: { 'x-channel-token': channel.token },
      payload: { type: 'message', id: `outage.${n}`, from: '201005550123', text: `m ${n}` },
    });
  const sendText = () => app.inject({ method: 'GET', url: '/functions/v1/messaging/conversations', headers: tenant.key });

  it('should answer 503 with Retry-After while it is away, tell it once, and answer 200 again once it is back', async () => {
    expect((await read()).statusCode).toBe(200);
    expect((await inbound(0)).statusCode).toBe(200);

    await proxy.stop();
    const answers = [];
    for (let i = 1; i <= 10; i++) answers.push(await read(), await inbound(i), await sendText());
    for (const answer of answers) {
      expect({ status: answer.statusCode, retryAfter: answer.headers['retry-after'] }).toEqual({ status: 503, retryAfter: '5' });
    }
    expect(answers[0].json()).toMatchObject({ code: 'database_unavailable' });
    expect(answers[2].json()).toEqual(expect.objectContaining({ code: 'database_unavailable', error: 'The service cannot reach its database; retry shortly' }));
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(changes).toEqual([false]);

    await proxy.start();
    let back = await read();
    for (let i = 0; i < 20 && back.statusCode !== 200; i++) back = await read();
    expect(back.statusCode).toBe(200);
    expect((await inbound(99)).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(changes).toEqual([false, true]);
  });
});
