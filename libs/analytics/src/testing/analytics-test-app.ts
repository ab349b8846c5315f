import { randomUUID } from 'node:crypto';
import { crmManifest, crmMigrations } from '@engage/crm';
import { identityManifest, identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { messagingManifest, messagingMigrations } from '@engage/messaging';
import { type Database, Database as DatabaseToken, type ExposedTable } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { DataApiModule } from '@engage/data-api';
import { analyticsManifest, analyticsMigrations, AnalyticsModule } from '../index';

// A clock tests move; reports and widgets read it.
export const testClock = {
  at: new Date('2026-01-20T12:00:00Z'),
  now(): Date {
    return this.at;
  },
};

// The data API serves what the composition serves to widgets: the CRM's and messaging's tables
// (read-only here: the CRM's writers belong to its module, which this app does not start).
const readOnly = (tables: readonly ExposedTable[]): ExposedTable[] => tables.map(({ table }) => ({ table: { ...table, writable: false } }));
const DATA_API_TABLES = [...identityManifest.tables, ...readOnly(crmManifest.tables), ...messagingManifest.tables, ...analyticsManifest.tables];

// Widget values are computed on every read unless a test asks for the cache.
export async function startAnalyticsApp(env: Record<string, string> = {}) {
  const started = await startTestApp([AnalyticsModule.withClock(testClock), DataApiModule.forRoot(DATA_API_TABLES)], {
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...analyticsMigrations],
    events: identityManifest.publishes,
    env: { ANALYTICS_WIDGET_CACHE_SECONDS: '0', ...env },
  });
  return { ...started, db: started.app.get(DatabaseToken) as Database };
}

export type AnalyticsApp = Awaited<ReturnType<typeof startAnalyticsApp>>;

export async function setSetting(app: AnalyticsApp, tenant: TestTenant, key: string, value: string) {
  await app.app.get(OrganizationService).setSetting(tenant.ctx.organizationId, key, value);
}

// Rows written as the system (fixtures), each in the tenant's organization.
export class Fixtures {
  private channelId: string | null = null;
  constructor(
    private readonly db: Database,
    private readonly organizationId: string,
  ) {}

  private async insert(table: string, row: Record<string, unknown>): Promise<string> {
    const full = Object.fromEntries(Object.entries({ id: randomUUID(), organization_id: this.organizationId, ...row }).filter(([, v]) => v !== undefined));
    const names = Object.keys(full);
    const values = names.map((name) => {
      const value: unknown = full[name];
      return value instanceof Date || value === null || typeof value !== 'object' ? value : JSON.stringify(value);
    });
    await this.db.systemQuery(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`, values);
    return full.id as string;
  }

  contact(createdAt: string) {
    return this.insert('contacts', { first_name: 'C', created_at: createdAt });
  }

  async conversation(contactId: string, fields: { assignee?: string | null; status?: string; resolvedAt?: string; createdAt?: string } = {}) {
    this.channelId ??= await this.insert('channel_accounts', { kind: 'chat_app', name: 'Chat' });
    const id = await this.insert('conversations', {
      contact_id: contactId,
      channel_account_id: this.channelId,
      assignee_id: fields.assignee ?? null,
      status: fields.status ?? 'OPEN',
      created_at: fields.createdAt ?? '2026-01-01T00:00:00Z',
      last_message_at: '2026-01-19T00:00:00Z',
    });
    if (fields.resolvedAt) await this.db.systemQuery('UPDATE conversations SET resolved_at = $2 WHERE id = $1', [id, fields.resolvedAt]);
    return { id, contactId };
  }

  message(
    conversation: { id: string; contactId: string },
    direction: 'INBOUND' | 'OUTBOUND',
    createdAt: string,
    // Who wrote it: the customer (inbound) or an agent (outbound) unless given.
    extra: { status?: string; metadata?: object; origin?: string; originId?: string } = {},
  ) {
    return this.insert('messages', {
      conversation_id: conversation.id,
      contact_id: conversation.contactId,
      channel_account_id: this.channelId,
      direction,
      status: extra.status ?? (direction === 'INBOUND' ? 'DELIVERED' : 'SENT'),
      metadata: extra.metadata ?? {},
      origin: extra.origin ?? (direction === 'INBOUND' ? 'customer' : 'agent'),
      origin_id: extra.originId ?? null,
      created_at: createdAt,
    });
  }

  async pipeline() {
    const pipelineId = await this.insert('pipelines', { name: 'Sales', is_default: false });
    const stage = (key: string, name: string, position: number, outcome: string) =>
      this.insert('pipeline_stages', { pipeline_id: pipelineId, key, name, position, outcome });
    return { pipelineId, lead: await stage('LEAD', 'Lead', 0, 'open'), won: await stage('WON', 'Won', 1, 'won'), lost: await stage('LOST', 'Lost', 2, 'lost') };
  }

  async deal(pipeline: { pipelineId: string }, stageId: string, stage: string, value: number, createdAt: string, enteredAt?: string) {
    const id = await this.insert('deals', { title: 'D', pipeline_id: pipeline.pipelineId, stage_id: stageId, stage, value, created_at: createdAt });
    if (enteredAt) await this.insert('deal_stage_history', { id: undefined, deal_id: id, from_stage: 'LEAD', to_stage: stage, changed_at: enteredAt });
    return id;
  }

  // A later stage change, as the CRM records it: the deal's stage, then its history row.
  async move(dealId: string, stageId: string, stage: string, at: string) {
    await this.db.systemQuery('UPDATE deals SET stage_id = $2, stage = $3 WHERE id = $1', [dealId, stageId, stage]);
    await this.insert('deal_stage_history', { id: undefined, deal_id: dealId, to_stage: stage, changed_at: at });
  }
}

export { createTestTenant, memberHeaders, type TestTenant };
