import { type CatalogueColumn, type PlatformRuntime, schemaDisagreements } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS, CONTEXTS } from './index';

const CATALOGUE = `SELECT table_name, column_name, data_type, udt_name, is_nullable FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) ORDER BY table_name, ordinal_position`;

// Every table the data API serves against the migrated database: a declared table column for column
// (name, SQL type, nullability, no undeclared column), the others by their served columns' types.
describe('the data API tables and the database', () => {
  let runtime: PlatformRuntime;
  const tables = CONTEXTS.flatMap((context) => context.tables.map((exposed) => exposed.table));

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS });
  });
  afterAll(() => runtime.close());

  it('should agree, column for column', async () => {
    const rows = await runtime.db.systemQuery<CatalogueColumn & { table_name: string }>(CATALOGUE, [tables.map((table) => table.name)]);
    const problems = tables.flatMap((table) =>
      schemaDisagreements(
        table,
        rows.filter((row) => row.table_name === table.name),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('should compare every table served today column for column (each has a declaration)', () => {
    const declared = tables.filter((table) => table.declared).map((table) => table.name);
    expect(declared).toEqual(
      expect.arrayContaining([
        'profiles',
        'contacts',
        'companies',
        'deals',
        'pipelines',
        'pipeline_stages',
        'deal_stage_history',
        'deal_owner_history',
        'tasks',
        'notes',
        'timeline_entries',
        'channel_accounts',
        'conversations',
        'messages',
        'webhook_configurations',
        'webhook_logs',
        'call_records',
        'subscription_plans',
        'subscriptions',
      ]),
    );
  });
});
