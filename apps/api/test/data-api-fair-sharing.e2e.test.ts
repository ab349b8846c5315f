import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// One organization's slow requests hold at most ORG_MAX_CONCURRENT_REQUESTS connections, a few more
// wait briefly, the rest are refused with 429 and Retry-After; another organization is served. The
// data API and the functions share one gate per organization; the provider's inbound webhook is
// never refused.
describe('fair sharing of the pool between organizations', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp({ env: { ORG_MAX_CONCURRENT_REQUESTS: '2', ORG_MAX_QUEUED_REQUESTS: '1', ORG_QUEUE_WAIT_MS: '5000' } }));
  });
  afterAll(() => close());

  it("should cap one organization's requests in flight and keep serving another", async () => {
    const busy = await createTestTenant(app);
    const calm = await createTestTenant(app);
    await app.get(ContactService).create(busy.ctx, { first_name: 'Busy' });
    const channel = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: busy.session,
      payload: { kind: 'chat_app', name: 'Inbound' },
    });
    expect(channel.statusCode).toBe(201);
    const { channel_account: account, inbound_token: token } = channel.json<{ channel_account: { id: string }; inbound_token: string }>();
    // A second session of the busy owner, signed out: its token's signature still holds.
    const second = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email: busy.email, password: busy.password } });
    const signedOut = { authorization: `Bearer ${second.json<{ access_token: string }>().access_token}` };
    expect((await app.inject({ method: 'POST', url: '/auth/v1/logout?scope=local', headers: signedOut })).statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url: '/rest/v1/companies?select=name', headers: signedOut })).statusCode).toBe(401);
    // A lock on contacts keeps the busy organization's reads waiting (they are slow); the calm one reads companies.
    const [answers, calmAnswer] = await runtime.db.asSystem(async (tx) => {
      await tx.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
      const settled: Awaited<ReturnType<typeof app.inject>>[] = [];
      const read = () => app.inject({ method: 'GET', url: '/rest/v1/contacts?select=first_name', headers: busy.session });
      const all = Array.from({ length: 6 }, () => read().then((r) => (settled.push(r), r)));
      // Two run, one waits: three are refused at once (whichever reach the gate last).
      for (let waited = 0; settled.length < 3; waited += 20) {
        if (waited > 3000) throw new Error(`only ${settled.length} answered while the lock was held`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const refused = [...settled];
      const slow = all;
      const other = await app.inject({ method: 'GET', url: '/rest/v1/companies?select=name', headers: calm.session });
      const proxied = await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/contacts?select=first_name', headers: busy.key });
      // Functions of the saturated organization are refused too, whoever authenticates them.
      const functions = [
        await app.inject({ method: 'GET', url: '/functions/v1/imports', headers: busy.session }),
        await app.inject({ method: 'GET', url: '/functions/v1/messaging/channel-accounts', headers: busy.key }),
        await app.inject({
          method: 'POST',
          url: '/functions/v1/chat-lite-send',
          headers: busy.session,
          payload: { to: '+201000000001', message: 'hi', organizationId: busy.ctx.organizationId },
        }),
      ];
      const calmFunctions = [
        await app.inject({ method: 'GET', url: '/functions/v1/imports', headers: calm.session }),
        await app.inject({ method: 'GET', url: '/functions/v1/messaging/channel-accounts', headers: calm.key }),
      ];
      // The provider's inbound messages for the saturated organization are still taken.
      const inbound = await app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${account.id}`,
        headers: { 'x-channel-token': token },
        payload: { type: 'message', id: 'fair-1', from: '+201000000002', text: 'still heard' },
      });
      // Refused before its session is looked up: the gate answers first, so a flood of one
      // organization's requests costs no session query each (the session check would say 401).
      const early = await app.inject({ method: 'GET', url: '/rest/v1/companies?select=name', headers: signedOut });
      // Unauthenticated and account routes are not gated: a wrong password is a 400, not a 429.
      const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email: busy.email, password: 'wrong password' } });
      expect(settled).toHaveLength(3);
      return [{ refused, proxied, slow, functions, calmFunctions, inbound, login, early }, other];
    });
    for (const response of answers.functions) {
      expect(response.statusCode).toBe(429);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toContain('too_many_concurrent_requests');
    }
    for (const response of answers.calmFunctions) expect(response.statusCode).toBe(200);
    expect(answers.inbound.statusCode).toBe(200);
    expect(answers.inbound.json()).toMatchObject({ received: true });
    expect(answers.login.statusCode).toBe(400);
    expect(answers.early.statusCode).toBe(429);
    for (const response of answers.refused) {
      expect(response.statusCode).toBe(429);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toMatchObject({ code: 'too_many_concurrent_requests' });
    }
    expect(answers.proxied.statusCode).toBe(429); // the API key is the same organization
    expect(answers.proxied.json()).toMatchObject({ error: expect.stringContaining('this organization'), code: 'too_many_concurrent_requests' });
    expect(calmAnswer.statusCode).toBe(200);
    // The lock is gone: the running and the queued reads finish.
    const finished = (await Promise.all(answers.slow)).filter((response) => !answers.refused.includes(response));
    expect(finished).toHaveLength(3);
    for (const response of finished) expect(response.json()).toEqual([{ first_name: 'Busy' }]);
    // 3 data API requests, the proxy's, 3 functions and the signed-out session's refused: /metrics counts them.
    expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^org_gate_refused_total 8$/m);
    // Once the organization has room again, the signed-out session is told so.
    expect((await app.inject({ method: 'GET', url: '/rest/v1/companies?select=name', headers: signedOut })).statusCode).toBe(401);
  });
});
