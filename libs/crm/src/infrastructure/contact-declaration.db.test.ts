import { identityMigrations } from '@engage/identity';
import { type CatalogueColumn, namedColumns, type PlatformRuntime, schemaDisagreements, selectList, tableDefinition } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { completeFields, csvColumns, declareTable, field, fieldNames, parseFields, type RowOf, toView } from '@engage/shared-kernel';
import { CONTACT_FIELDS, CONTACTS, text } from '../domain/contact';
import { crmMigrations } from '../index';
import { CRM_TABLES } from './exposed-tables';
import { CONTACT_WRITE, INSERT_CONTACT, UPDATE_CONTACT } from './contact.sql';

const CATALOGUE = `SELECT column_name, data_type, udt_name, is_nullable FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name = 'contacts' ORDER BY ordinal_position`;

// docs/crm.md, "Adding a contact field": one declaration (the line docs/crm.md shows, added the way
// domain/contact.ts would gain it) plus one migration (the ALTER TABLE), and everything else follows.
const WITH_NICKNAME = declareTable({ name: 'contacts', columns: { ...CONTACTS.columns, nickname: field('text', text(50), { default: () => '' }) } });
const unknown = (fields: string[]) => new Error(`unknown ${fields.join(', ')}`);
const required = (name: string) => new Error(`${name} is required`);

describe('the contacts declaration', () => {
  it('should be the source of the data API columns, the named SQL, the CSV columns and the view', () => {
    const all = Object.keys(CONTACTS.columns);
    expect(CRM_TABLES.contacts.readable).toEqual(all);
    expect(Object.keys(CRM_TABLES.contacts.columns)).toEqual(all);
    expect(CONTACT_FIELDS).toEqual(all.filter((name) => !['id', 'organization_id', 'created_at', 'updated_at'].includes(name)));
    for (const [i, name] of CONTACT_FIELDS.entries()) {
      expect(INSERT_CONTACT).toContain(name);
      expect(UPDATE_CONTACT).toContain(`${name} = $${i + 2}`);
    }
    expect(csvColumns(CONTACTS).export).toEqual(all.filter((name) => name !== 'organization_id'));
  });

  it('should carry a new field everywhere from one declaration', () => {
    expect(tableDefinition(WITH_NICKNAME).readable).toContain('nickname');
    expect(tableDefinition(WITH_NICKNAME).declared?.nickname).toEqual({ sql: 'text', nullable: false });
    const write = namedColumns(WITH_NICKNAME, fieldNames(WITH_NICKNAME));
    expect(write.list).toMatch(/, nickname$/);
    expect(write.assignments(2)).toMatch(/nickname = \$13$/);
    expect(write.recordType).toMatch(/nickname text$/);
    expect(csvColumns(WITH_NICKNAME).import).toContain('nickname');
    expect(selectList(WITH_NICKNAME)).toContain('nickname');
    const parsed = parseFields(WITH_NICKNAME, { first_name: 'Ann', nickname: ' Annie ' }, { country: undefined }, unknown);
    const fields = completeFields(WITH_NICKNAME, parsed, required);
    expect(fields).toMatchObject({ first_name: 'Ann', nickname: 'Annie', phones: [], custom_fields: {} });
    expect(completeFields(WITH_NICKNAME, { first_name: 'Bo' }, required).nickname).toBe('');
    expect(() => parseFields(WITH_NICKNAME, { nickname: 'x'.repeat(51) }, { country: undefined }, unknown)).toThrow('nickname must be at most 50 characters');
    // The declaration without the field refuses it, as a typo.
    expect(() => parseFields(CONTACTS, { nickname: 'x' }, { country: undefined }, unknown)).toThrow('unknown nickname');
  });

  describe('against the database', () => {
    let runtime: PlatformRuntime;

    beforeAll(async () => {
      runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    });
    afterAll(() => runtime.close());

    const catalogue = () => runtime.db.systemQuery<CatalogueColumn>(CATALOGUE);

    it('should agree with the migrated table, and tell when the two part', async () => {
      expect(schemaDisagreements(CRM_TABLES.contacts, await catalogue())).toEqual([]);
      // A declared column the migration forgot, with the wrong type and nullability.
      const columns = { ...CONTACTS.columns, source: field('integer', () => 1, { nullable: true }), extra: field('text', text(10)) };
      const wrong = declareTable({ name: 'contacts', columns });
      expect(schemaDisagreements(tableDefinition(wrong), await catalogue())).toEqual([
        'contacts.source: declared integer, the database has text',
        'contacts.source: declared nullable, the database disagrees',
        'contacts.extra: declared, not in the database',
      ]);
    });

    it('should write and read a field added by one declaration and one migration', async () => {
      await runtime.db.asSystem((tx) => tx.query(`ALTER TABLE contacts ADD COLUMN nickname text NOT NULL DEFAULT '' CHECK (length(nickname) <= 50)`));
      try {
        // The migration without the declaration is caught; with it, the two agree.
        expect(schemaDisagreements(CRM_TABLES.contacts, await catalogue())).toEqual(['contacts.nickname: in the database, not declared']);
        expect(schemaDisagreements(tableDefinition(WITH_NICKNAME), await catalogue())).toEqual([]);
        const ctx = await makeOrganization(runtime);
        const write = namedColumns(WITH_NICKNAME, fieldNames(WITH_NICKNAME));
        const parsed = parseFields(WITH_NICKNAME, { first_name: 'Ann', nickname: 'Annie', tags: ['a'] }, { country: undefined }, unknown);
        const fields = completeFields(WITH_NICKNAME, parsed, required);
        const insert = `INSERT INTO contacts (organization_id, ${write.list}) VALUES (app_org_id(), ${write.placeholders(1)})
          RETURNING ${selectList(WITH_NICKNAME)}`;
        const [row] = await runtime.db.inTenant(ctx, (tx) => tx.query<RowOf<typeof WITH_NICKNAME>>(insert, write.values(fields)));
        const view = toView(WITH_NICKNAME, row);
        expect(view).toMatchObject({ first_name: 'Ann', nickname: 'Annie', tags: ['a'], organization_id: ctx.organizationId });
        expect(view.created_at).toMatch(/Z$/);
        // The shipped statements keep working beside the new column (named, not positional).
        const values = CONTACT_WRITE.values({ ...fields, last_name: 'Lee' });
        const [plain] = await runtime.db.inTenant(ctx, (tx) => tx.query<{ nickname: string; last_name: string }>(INSERT_CONTACT, values));
        expect(plain).toMatchObject({ nickname: '', last_name: 'Lee' });
      } finally {
        await runtime.db.asSystem((tx) => tx.query('ALTER TABLE contacts DROP COLUMN nickname'));
      }
    });
  });
});
