import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations, OrganizationService, TokenService } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import { loadConfig } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { messagingMigrations } from '../../index';
import { MessagingModule } from '../../messaging.module';
import { ProviderHolder } from './provider-holder';

// Without NOTIFY_URL the built-in sandbox provider answers; with ALLOW_ANON_SEND=true the anon key may send.
describe('chat-lite-send with the sandbox provider and ALLOW_ANON_SEND=true', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startTestApp([MessagingModule], {
      role: 'api',
      migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
      env: { ALLOW_ANON_SEND: 'true' },
    }));
  });
  afterAll(() => close());

  it('should send with the anon key through the sandbox, which records the §4.2 call', async () => {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'sandbox-key');
    const anon = await app.get(TokenService).issueAnonKey();
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: { authorization: `Bearer ${anon}` },
      payload: { to: '201001234567', message: 'hi', organizationId: tenant.ctx.organizationId },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({ status: true, message: 'Message queued (sandbox)' });
    const sandbox = app.get(ProviderHolder).sandbox!;
    expect(sandbox.calls).toHaveLength(1);
    expect(sandbox.calls[0]).toMatchObject({
      organizationId: tenant.ctx.organizationId,
      headers: { appapikey: 'sandbox-key' },
      body: { UOWCHAT: { receivers: [{ mobileNum: '201001234567' }], message: 'hi', random_string: 0 } },
    });
  });

  it('should answer 404 for an unknown organization', async () => {
    const anon = await app.get(TokenService).issueAnonKey();
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: { authorization: `Bearer ${anon}` },
      payload: { to: '201001234567', message: 'hi', organizationId: '6f1c0a52-0000-4000-8000-000000000001' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: expect.stringContaining('organization'), code: 'organization.not_found' });
  });

  it('should refuse the sandbox when NODE_ENV=production', async () => {
    const config = { ...loadConfig({ NODE_ENV: 'test' }), NODE_ENV: 'production' as const };
    await expect(ProviderHolder.create(config)).rejects.toThrow('refused when NODE_ENV=production');
  });
});
