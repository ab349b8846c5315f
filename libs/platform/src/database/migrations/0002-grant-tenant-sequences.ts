import type { MigrationInterface, QueryRunner } from 'typeorm';

// enable_tenant_rls also lets app_tenant use the sequences a tenant table owns (bigserial ids),
// and grants them for tables already set up.
export class GrantTenantSequences1763800000002 implements MigrationInterface {
  name = 'GrantTenantSequences1763800000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION grant_tenant_sequences(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        seq regclass;
      BEGIN
        FOR seq IN SELECT s.oid::regclass FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
                   WHERE d.refobjid = tbl AND d.classid = 'pg_class'::regclass AND s.relkind = 'S' LOOP
          EXECUTE format('GRANT USAGE ON SEQUENCE %s TO app_tenant', seq);
        END LOOP;
      END $$;

      CREATE OR REPLACE FUNCTION enable_tenant_rls(tbl regclass, org_column name DEFAULT 'organization_id') RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        t text := (SELECT relname FROM pg_class WHERE oid = tbl);
      BEGIN
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
        EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', tbl);
        EXECUTE format('CREATE POLICY %I ON %s TO app_tenant USING (%I = app_org_id()) WITH CHECK (%I = app_org_id())',
                       t || '_tenant', tbl, org_column, org_column);
        EXECUTE format('CREATE POLICY %I ON %s TO %I USING (true) WITH CHECK (true)', t || '_system', tbl, current_user);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO app_tenant', tbl);
        PERFORM grant_tenant_sequences(tbl);
      END $$;

      SELECT grant_tenant_sequences(c.oid::regclass) FROM pg_class c
      WHERE c.relkind = 'r' AND c.relforcerowsecurity AND c.relnamespace = 'public'::regnamespace;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION grant_tenant_sequences(regclass)`);
  }
}
