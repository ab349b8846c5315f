import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { PlatformRuntime } from '@engage/platform';
import { callsMigrations } from '../../index';

describe('calls schema', () => {
  let runtime: PlatformRuntime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ migrations: [...identityMigrations, ...crmMigrations, ...callsMigrations] });
  });
  afterAll(() => runtime.close());

  const insert = (values: Record<string, unknown>) => {
    const names = Object.keys(values);
    const sql = `INSERT INTO call_records (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`;
    return runtime.db.asSystem((tx) => tx.query<Record<string, unknown>>(sql, Object.values(values)));
  };

  it('takes a received mobile call with its defaults, seen only by its organization', async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const [row] = await insert({ organization_id: a.organizationId, recording_url: 'https://cdn.example.com/s/2026/11/x.mp3' });
    expect(row).toMatchObject({ status: 'received', source: 'mobile', direction: 'inbound', attempts: 0, contact_id: null });
    expect(row.call_timestamp).toBeInstanceOf(Date);
    expect(await runtime.db.inTenant(a, (tx) => tx.query('SELECT id FROM call_records'))).toEqual([{ id: row.id }]);
    expect(await runtime.db.inTenant(b, (tx) => tx.query('SELECT id FROM call_records'))).toEqual([]);
  });

  it('refuses unknown statuses, sources and directions, a failure without its reason, and a phone call without its recording', async () => {
    const { organizationId } = await makeOrganization(runtime);
    const url = 'https://cdn.example.com/a.mp3';
    await expect(insert({ organization_id: organizationId, recording_url: url, status: 'done' })).rejects.toThrow(/call_records_status_known/);
    await expect(insert({ organization_id: organizationId, recording_url: url, source: 'sms' })).rejects.toThrow(/call_records_source_known/);
    await expect(insert({ organization_id: organizationId, recording_url: url, direction: 'sideways' })).rejects.toThrow(/call_records_direction_known/);
    await expect(insert({ organization_id: organizationId, recording_url: url, status: 'failed' })).rejects.toThrow(/call_records_failure_explained/);
    await expect(insert({ organization_id: organizationId })).rejects.toThrow(/call_records_recording_present/);
    await expect(insert({ organization_id: organizationId, recording_url: url, notes: 'x'.repeat(10001) })).rejects.toThrow(/call_records_notes_length/);
    await expect(insert({ organization_id: organizationId, source: 'meeting', meeting: JSON.stringify({ topic: 'Weekly' }) })).resolves.toHaveLength(1);
  });

  it("refuses another organization's contact", async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const [contact] = await runtime.db.asSystem((tx) =>
      tx.query<{ id: string }>(`INSERT INTO contacts (organization_id, first_name) VALUES ($1, 'Other') RETURNING id`, [b.organizationId]),
    );
    const foreign = insert({ organization_id: a.organizationId, recording_url: 'https://cdn.example.com/a.mp3', contact_id: contact.id });
    await expect(foreign).rejects.toThrow(/call_records_contact_fkey/);
  });
});
