import { randomBytes } from 'node:crypto';
import { type PlatformRuntime, SecretBox } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { identityMigrations } from '../index';
import { OrganizationService } from './organization.service';
import { OrganizationSettings } from './organization-settings';

describe('OrganizationService', () => {
  let runtime: PlatformRuntime;
  let organizations: OrganizationService;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: identityMigrations });
    organizations = new OrganizationService(runtime.db, new SecretBox(randomBytes(32)));
  });
  afterAll(() => runtime.close());

  const count = async (table: string) => (await runtime.db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)))[0].n;

  it('should create the organization, its OWNER and organization.created together', async () => {
    const created = await organizations.createOrganization({ name: ' Acme ', ownerEmail: `a.${Date.now()}@example.com`, ownerPassword: 'owner password 1' });
    const [event] = await runtime.db.asSystem((tx) =>
      tx.query<{ type: string }>('SELECT type FROM outbox WHERE organization_id = $1', [created.organization_id]),
    );
    expect(event.type).toBe('organization.created');
    const [member] = await runtime.db.asSystem((tx) =>
      tx.query<{ role: string }>('SELECT role FROM memberships WHERE organization_id = $1', [created.organization_id]),
    );
    expect(member.role).toBe('OWNER');
  });

  it('should leave nothing behind when the owner cannot be created', async () => {
    const email = `taken.${Date.now()}@example.com`;
    await organizations.createOrganization({ name: 'First', ownerEmail: email, ownerPassword: 'owner password 1' });
    const [orgs, events] = [await count('organizations'), await count('outbox')];
    await expect(organizations.createOrganization({ name: 'Second', ownerEmail: email, ownerPassword: 'owner password 1' })).rejects.toMatchObject({
      code: 'user_already_exists',
    });
    await expect(organizations.createOrganization({ name: 'Third', ownerEmail: 'not-an-email', ownerPassword: 'owner password 1' })).rejects.toMatchObject({
      kind: 'validation',
    });
    expect([await count('organizations'), await count('outbox')]).toEqual([orgs, events]);
  });

  it('should refuse NUL characters from the admin commands before any query', async () => {
    const nul = (input: { name: string; ownerEmail: string }) => organizations.createOrganization({ ...input, ownerPassword: 'owner password 1' });
    await expect(nul({ name: 'Ac\u0000me', ownerEmail: `n.${Date.now()}@example.com` })).rejects.toMatchObject({
      kind: 'validation',
      message: 'organization name must not contain NUL characters',
    });
    const badEmail = nul({ name: 'Acme', ownerEmail: `n\u0000.${Date.now()}@example.com` });
    await expect(badEmail).rejects.toMatchObject({ kind: 'validation', message: expect.stringContaining('email') });
  });

  it('should read a plain setting back for other contexts, and never a sealed one', async () => {
    const box = new SecretBox(randomBytes(32));
    const service = new OrganizationService(runtime.db, box);
    const settings = new OrganizationSettings(runtime.db, box);
    const { organization_id: id } = await service.createOrganization({
      name: 'Suite',
      ownerEmail: `s.${Date.now()}@example.com`,
      ownerPassword: 'owner password 1',
    });
    expect(await settings.plain(id, 'suite_id')).toBeNull();
    await service.setSetting(id, 'suite_id', 'acme-01');
    expect(await settings.plain(id, 'suite_id')).toBe('acme-01');
    await service.setSetting(id, 'appgain_api_key', 'provider-key');
    await expect(settings.plain(id, 'appgain_api_key')).rejects.toThrow(/sealed/);
    await service.setSetting(id, 'time_zone', 'Asia/Tokyo');
    expect(await settings.plainMany(id, ['time_zone', 'missing', 'suite_id'])).toEqual(['Asia/Tokyo', null, 'acme-01']);
    await expect(settings.plainMany(id, ['suite_id', 'appgain_api_key'])).rejects.toThrow(/sealed/);
  });

  it('should check business_hours when set: a clear validation error, nothing stored', async () => {
    const settings = new OrganizationSettings(runtime.db, new SecretBox(randomBytes(32)));
    const owner = { ownerEmail: `h.${Date.now()}@example.com`, ownerPassword: 'owner password 1' };
    const { organization_id: id } = await organizations.createOrganization({ name: 'Hours', ...owner });
    await expect(organizations.setSetting(id, 'business_hours', '{"mon":[["09:00","17:00"],["16:00","18:00"]]}')).rejects.toMatchObject({
      kind: 'validation',
      message: 'business_hours: mon has overlapping intervals (09:00-17:00 and 16:00-18:00)',
    });
    await expect(organizations.setSetting(id, 'business_hours', 'weekdays 9 to 5')).rejects.toMatchObject({ kind: 'validation' });
    expect(await settings.plain(id, 'business_hours')).toBeNull();
    await organizations.setSetting(id, 'business_hours', '{"mon":[["09:00","17:00"]]}');
    expect(await settings.plain(id, 'business_hours')).toBe('{"mon":[["09:00","17:00"]]}');
  });
});
