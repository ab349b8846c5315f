import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { SecretBox } from '@engage/platform';
import { installTestDns } from '@engage/platform/testing';
import { CUSTOMER_AI_RESOLVER, type CustomerAiResolver } from '@engage/shared-kernel';
import { AiTargets } from '../application/ai-targets';
import { ReengagementSettings } from '../application/settings.service';
import { ChatCompletions } from '../infrastructure/chat-completions';
import { REENGAGEMENT_OUTBOUND } from '../reengagement.module';
import { captureOutput, type ReengagementApp, startReengagementApp } from '../testing';

const KEY = 'sk-customer-secret-key-abcdef-9876';
let r: ReengagementApp;
let captured: string[] = [];
const answers: string[] = [];

// Names resolve by TEST_DNS (hosts-entry.test to loopback, .invalid nowhere), whether or not this
// machine has DNS.
let restoreDns: () => void;

beforeAll(async () => {
  restoreDns = installTestDns();
  captured = captureOutput();
  r = await startReengagementApp();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await r.stop();
  restoreDns();
});

const call = async (method: 'GET' | 'PUT', headers: Record<string, string>, payload?: object) => {
  const res = await r.app.inject({ method, url: '/functions/v1/reengagement/settings', headers, payload });
  answers.push(res.body);
  return res;
};

describe('re-engagement settings', () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await createTestTenant(r.app);
  });

  it('should answer the defaults: off, default AI, 20 h, the social-messaging channels, no key', async () => {
    const res = await call('GET', t.session);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      enabled: false,
      provider: 'default',
      has_custom_key: false,
      custom_key_last4: null,
      trigger_hours: 20,
      channels: ['messenger', 'instagram'],
      approval_mode: true,
      fallback_to_default: true,
      key_scope: 'reengagement',
      default_ai_configured: true,
    });
  });

  it('should let OWNER and ADMIN configure and refuse AGENT and API keys with 403', async () => {
    const admin = await memberHeaders(r.app, t, 'ADMIN');
    expect((await call('PUT', admin, { trigger_hours: 18 })).statusCode).toBe(200);
    const agent = await memberHeaders(r.app, t, 'AGENT');
    expect((await call('GET', agent)).statusCode).toBe(403);
    expect((await call('PUT', agent, { enabled: true })).statusCode).toBe(403);
    expect((await call('GET', t.key)).statusCode).toBe(401);
  });

  it.each([
    [{ trigger_hours: 11 }, 'trigger_hours'],
    [{ trigger_hours: 24 }, 'trigger_hours'],
    [{ trigger_hours: 20.5 }, 'trigger_hours'],
    [{ trigger_hours: '20' }, 'trigger_hours'],
    [{ provider: 'openai' }, 'provider'],
    [{ key_scope: 'calls' }, 'key_scope'],
    [{ channels: ['fax'] }, 'channels'],
    [{ channels: ['sms'] }, 'channels'],
    [{ channels: 'messenger' }, 'channels'],
    [{ enabled: 'yes' }, 'enabled'],
    [{ custom_key: 'short' }, 'custom_key'],
    [{ custom_key: 'has a space in it' }, 'custom_key'],
    [{ custom_key: 42 }, 'custom_key'],
    [{ guidelines: 'x'.repeat(4001) }, 'guidelines'],
    [{ approval_mode: 1 }, 'approval_mode'],
    [{ surprise: true }, 'surprise'],
    [{ custom_base_url: 'http://10.0.0.8/v1' }, 'custom_base_url'],
    [{ custom_base_url: 'ftp://ai.example.com/' }, 'custom_base_url'],
    [{ custom_base_url: 'not a url' }, 'custom_base_url'],
    // Resolved when saved, by the rules of a call (OUTBOUND_ALLOW_HOSTS is 127.0.0.1 here).
    [{ custom_base_url: 'https://localhost/v1' }, 'custom_base_url: localhost resolves to a non-public address'],
    [{ custom_base_url: 'https://localhost./v1' }, 'custom_base_url: localhost resolves to a non-public address'],
    [{ custom_base_url: 'https://hosts-entry.test/v1' }, 'custom_base_url: hosts-entry.test resolves to a non-public address (127.0.0.1)'],
    [{ custom_base_url: 'https://metadata.internal.test/v1' }, 'custom_base_url: metadata.internal.test resolves to a non-public address (169.254.169.254)'],
    [{ custom_base_url: 'https://ai.nowhere.invalid/v1' }, 'custom_base_url: ai.nowhere.invalid does not resolve'],
  ])('should refuse a bad body (%#) with a 400 naming the field', async (payload, field) => {
    const res = await call('PUT', t.session, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(field);
  });

  it('should refuse a body that is not JSON with a 400', async () => {
    const res = await r.app.inject({
      method: 'PUT',
      url: '/functions/v1/reengagement/settings',
      headers: { ...t.session, 'content-type': 'application/json' },
      payload: '{',
    });
    expect(res.statusCode).toBe(400);
  });

  it('should seal the customer key, check it with one call, show only its last four, and remove it with null', async () => {
    const u = await createTestTenant(r.app);
    const res = await call('PUT', u.session, { provider: 'custom', custom_key: KEY, custom_base_url: r.customerAi.baseUrl, key_scope: 'all' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ provider: 'custom', has_custom_key: true, custom_key_last4: '9876', key_scope: 'all', custom_key_check: { ok: true } });
    expect(r.customerAi.modelChecks.at(-1)).toBe(`Bearer ${KEY}`);
    const [stored] = await r.runtime.db.inTenant(u.ctx, (tx) => tx.query<{ custom_key_sealed: string }>('SELECT custom_key_sealed FROM reengagement_settings'));
    expect(stored.custom_key_sealed).toMatch(/^v1:/);
    expect(stored.custom_key_sealed).not.toContain(KEY);
    expect((await call('GET', u.session)).json()).toMatchObject({ has_custom_key: true, custom_key_last4: '9876' });
    expect((await call('PUT', u.session, { enabled: true })).json()).toMatchObject({ enabled: true });

    r.customerAi.refusedKeys.add(`${KEY}-revoked`);
    const refused = await call('PUT', u.session, { custom_key: `${KEY}-revoked` });
    expect(refused.statusCode).toBe(200);
    expect(refused.json().custom_key_check).toEqual({ ok: false, error: 'the custom AI answered 401 (key refused)' });

    const removed = await call('PUT', u.session, { enabled: false, custom_key: null });
    expect(removed.json()).toMatchObject({ has_custom_key: false, custom_key_last4: null });
  });

  it('should refuse enabling without a usable AI and say why', async () => {
    const u = await createTestTenant(r.app);
    const res = await call('PUT', u.session, { enabled: true, provider: 'custom' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'reengagement.ai_not_configured' });
    expect(res.json().error).toContain('no custom_key is set');
    expect((await call('GET', u.session)).json().enabled).toBe(false);
  });

  it('should refuse enabling with the default provider when the platform has no AI, and say so', async () => {
    const u = await createTestTenant(r.app);
    const box = r.app.get(SecretBox);
    const outbound = r.app.get(REENGAGEMENT_OUTBOUND);
    // The same service over a platform without AI_BASE_URL.
    const targets = new AiTargets({ baseUrl: undefined, apiKey: undefined, model: 'm' }, box);
    const settings = new ReengagementSettings(r.runtime.db, box, targets, r.app.get(ChatCompletions), outbound);
    await expect(settings.change(u.ctx, { enabled: true })).rejects.toMatchObject({
      code: 'reengagement.ai_not_configured',
      message: 'Re-engagement cannot be enabled: the platform has no default AI configured (AI_BASE_URL): set provider custom with your own custom_key',
    });
    await expect(settings.change(u.ctx, { provider: 'custom', custom_key: KEY })).rejects.toMatchObject({ code: 'reengagement.no_ai_address' });
    expect((await settings.show(u.ctx)).default_ai_configured).toBe(false);
  });

  it('should give other AI features (call analysis) the customer key only with key_scope all, reaching their address through the outbound client', async () => {
    const u = await createTestTenant(r.app);
    const resolver = r.app.get<symbol, CustomerAiResolver>(CUSTOMER_AI_RESOLVER);
    expect(await resolver.providerFor(u.ctx.organizationId)).toEqual({ kind: 'platform-default' });
    await call('PUT', u.session, { provider: 'custom', custom_key: KEY, custom_base_url: r.customerAi.baseUrl, key_scope: 'reengagement' });
    expect(await resolver.providerFor(u.ctx.organizationId)).toEqual({ kind: 'platform-default' });
    await call('PUT', u.session, { key_scope: 'all' });
    const choice = await resolver.providerFor(u.ctx.organizationId);
    expect(choice).toMatchObject({ kind: 'customer-key', baseUrl: r.customerAi.baseUrl, apiKey: KEY });
    if (choice.kind !== 'customer-key' || !choice.fetch) throw new Error('expected the outbound transport');
    r.customerAi.completionScript.push({ content: '{"ok":true}' });
    const answer = await choice.fetch(`${choice.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${choice.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(answer.status).toBe(200);
    expect(r.customerAi.completions.at(-1)!.authorization).toBe(`Bearer ${KEY}`);
    await expect(choice.fetch('https://10.0.0.8/v1/chat/completions', { method: 'POST', body: '{}' })).rejects.toThrow(/not allowed/);
    await call('PUT', u.session, { provider: 'default' });
    expect(await resolver.providerFor(u.ctx.organizationId)).toEqual({ kind: 'platform-default' });
  });

  it('should never show the customer key in any response or log line', () => {
    expect(answers.length).toBeGreaterThan(10);
    expect(captured.length).toBeGreaterThan(0);
    for (const text of [...answers, ...captured]) expect(text).not.toContain(KEY);
  });
});
