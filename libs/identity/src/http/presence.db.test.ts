import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';
import { PresenceService } from '../application/presence.service';

describe('presence heartbeat', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startTestApp([IdentityModule], { role: 'api', migrations: identityMigrations }));
  });
  afterAll(() => close());

  const onlineOf = async (id: string) =>
    (await runtime.db.asSystem((tx) => tx.query<{ is_online: boolean }>('SELECT is_online FROM users WHERE id = $1', [id])))[0].is_online;

  it('should mark the caller online, offline on request, and offline after 5 silent minutes', async () => {
    const email = `presence.${Date.now()}@example.com`;
    const org = await app.get(OrganizationService).createOrganization({ name: 'P', ownerEmail: email, ownerPassword: 'presence password' });
    const token = (await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password: 'presence password' } })).json()
      .access_token;
    const headers = { authorization: `Bearer ${token}` };

    const beat = await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: {} });
    expect(beat.statusCode).toBe(200);
    expect(beat.json()).toEqual({ is_online: true, last_seen_at: expect.any(String) });
    expect(await onlineOf(org.owner_user_id)).toBe(true);

    await app.get(PresenceService).expireStale();
    expect(await onlineOf(org.owner_user_id)).toBe(true);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE users SET last_seen_at = now() - interval '6 minutes' WHERE id = $1`, [org.owner_user_id]));
    await app.get(PresenceService).expireStale();
    expect(await onlineOf(org.owner_user_id)).toBe(false);

    await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: {} });
    const away = await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: { online: false } });
    expect(away.json().is_online).toBe(false);

    expect((await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: { online: 'yes' } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/functions/v1/presence', payload: {} })).statusCode).toBe(401);
  });
});
