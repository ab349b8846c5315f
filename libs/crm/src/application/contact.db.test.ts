import { randomUUID } from 'node:crypto';
import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations } from '../index';
import { ContactService } from './contact.service';

describe('ContactService', () => {
  let runtime: PlatformRuntime;
  let contacts: ContactService;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    contacts = new ContactService(runtime.db);
  });
  afterAll(() => runtime.close());

  const org = async (country?: string): Promise<RequestContext> => {
    const ctx = await makeOrganization(runtime);
    if (country)
      await runtime.db.asSystem((tx) =>
        tx.query(`UPDATE organizations SET settings = jsonb_build_object('default_country', $2::text) WHERE id = $1`, [ctx.organizationId, country]),
      );
    return ctx;
  };
  const outboxTypes = async (orgId: string) =>
    (await runtime.db.asSystem((tx) => tx.query<{ type: string }>('SELECT type FROM outbox WHERE organization_id = $1 ORDER BY seq', [orgId]))).map(
      (r) => r.type,
    );
  const addMember = async (ctx: RequestContext) => {
    const userId = randomUUID();
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [userId, `${userId}@example.com`]);
      await tx.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'AGENT')`, [ctx.organizationId, userId]);
    });
    return userId;
  };

  it('should store phones in E.164 using the organization country and emit contact.created', async () => {
    const ctx = await org('EG');
    const created = await contacts.create(ctx, { first_name: 'Mona', phones: ['010 0123 4567'], emails: ['Mona@Example.com'] });
    expect(created).toMatchObject({
      organization_id: ctx.organizationId,
      phones: ['+201001234567'],
      emails: ['mona@example.com'],
      last_name: null,
      opt_in_status: false,
    });
    expect(await outboxTypes(ctx.organizationId)).toEqual(['contact.created']);
  });

  it('should find a contact by any written form of its phone', async () => {
    const ctx = await org('EG');
    const created = await contacts.create(ctx, { first_name: 'Sami', phones: ['+201001234567'] });
    for (const form of ['01001234567', '+20 100 123 4567', '0020-100-123-4567', '201001234567@s.whatsapp.net', '(010) 0123-4567']) {
      expect((await contacts.findByPhone(ctx, form))?.id).toBe(created.id);
    }
    expect(await contacts.findByPhone(ctx, '+201009999999')).toBeUndefined();
  });

  it('should refuse a second contact with the same phone, also when both are created at once', async () => {
    const ctx = await org();
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => contacts.create(ctx, { first_name: `Twin ${i}`, phones: ['+447911123456'] })),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(refused.every((a) => a.reason.code === 'contact.duplicate_phone')).toBe(true);
    const page = await contacts.list(ctx, { page: 1, limit: 50 });
    expect(page.total).toBe(1);
  });

  it('should update fields, move phones and emit contact.updated and contact.assigned', async () => {
    const ctx = await org();
    const agent = await addMember(ctx);
    const created = await contacts.create(ctx, { first_name: 'Lina', phones: ['+447911123456'] });
    const updated = await contacts.update(ctx, created.id, { last_name: 'Haddad', phones: ['+201112345678'], assignee_id: agent, tags: ['vip'] });
    expect(updated).toMatchObject({ last_name: 'Haddad', phones: ['+201112345678'], assignee_id: agent, tags: ['vip'] });
    expect(await contacts.findByPhone(ctx, '+447911123456')).toBeUndefined();
    expect((await contacts.findByPhone(ctx, '+201112345678'))?.id).toBe(created.id);
    expect(await outboxTypes(ctx.organizationId)).toEqual(['contact.created', 'contact.updated', 'contact.assigned']);
  });

  it("should never link another organization's company or member, nor touch its contacts", async () => {
    const a = await org();
    const b = await org();
    const bMember = await addMember(b);
    const [bCompany] = await runtime.db.inTenant(b, (tx) =>
      tx.query<{ id: string }>(`INSERT INTO companies (organization_id, name) VALUES ($1, 'B Inc') RETURNING id`, [b.organizationId]),
    );
    await expect(contacts.create(a, { first_name: 'X', company_id: bCompany.id })).rejects.toMatchObject({ code: 'company.not_found' });
    await expect(contacts.create(a, { first_name: 'X', assignee_id: bMember })).rejects.toMatchObject({ code: 'contact.invalid_assignee' });
    const bContact = await contacts.create(b, { first_name: 'Private', phones: ['+201223456789'] });
    await expect(contacts.get(a, bContact.id)).rejects.toMatchObject({ code: 'contact.not_found' });
    await expect(contacts.update(a, bContact.id, { first_name: 'Hijack' })).rejects.toMatchObject({ code: 'contact.not_found' });
    expect(await contacts.findByPhone(a, '+201223456789')).toBeUndefined();
    // The same phone is free in another organization.
    await expect(contacts.create(a, { first_name: 'Mine', phones: ['+201223456789'] })).resolves.toBeDefined();
  });

  it('should keep contacts when their company is deleted', async () => {
    const ctx = await org();
    const [company] = await runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string }>(`INSERT INTO companies (organization_id, name) VALUES ($1, 'Gone Ltd') RETURNING id`, [ctx.organizationId]),
    );
    const contact = await contacts.create(ctx, { first_name: 'Stays', company_id: company.id });
    expect((await contacts.get(ctx, contact.id)).company).toEqual({ id: company.id, name: 'Gone Ltd' });
    await runtime.db.inTenant(ctx, (tx) => tx.query('DELETE FROM companies WHERE id = $1', [company.id]));
    const after = await contacts.get(ctx, contact.id);
    expect(after.company_id).toBeNull();
    expect(after.company).toBeNull();
  });
});
