import type { MigrationInterface, QueryRunner } from 'typeorm';

// Foreign keys between tenant rows include organization_id, so a row can never point at another
// organization's company or member (a plain key would: key checks ignore row-level security).
export class CreateCompaniesAndContacts1763800002001 implements MigrationInterface {
  name = 'CreateCompaniesAndContacts1763800002001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE companies (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        country text NOT NULL DEFAULT '' CHECK (length(country) <= 100),
        website text NOT NULL DEFAULT '' CHECK (length(website) <= 2048),
        industry text NOT NULL DEFAULT '' CHECK (length(industry) <= 100),
        address_street text NOT NULL DEFAULT '',
        address_city text NOT NULL DEFAULT '',
        address_state text NOT NULL DEFAULT '',
        address_postal_code text NOT NULL DEFAULT '',
        address_country text NOT NULL DEFAULT '',
        phones text[] NOT NULL DEFAULT '{}',
        emails text[] NOT NULL DEFAULT '{}',
        company_size text NOT NULL DEFAULT '',
        annual_revenue numeric(18, 2),
        tags text[] NOT NULL DEFAULT '{}',
        notes text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      CREATE INDEX companies_org_name_idx ON companies (organization_id, lower(name));
      SELECT enable_tenant_rls('companies');

      CREATE TABLE contacts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        first_name text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
        last_name text CHECK (length(last_name) <= 100),
        phones text[] NOT NULL DEFAULT '{}',
        emails text[] NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        description text NOT NULL DEFAULT '',
        company_id uuid,
        assignee_id uuid,
        source text NOT NULL DEFAULT '',
        opt_in_status boolean NOT NULL DEFAULT false,
        custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT contacts_company_fkey FOREIGN KEY (organization_id, company_id)
          REFERENCES companies (organization_id, id) ON DELETE SET NULL (company_id),
        CONSTRAINT contacts_assignee_fkey FOREIGN KEY (organization_id, assignee_id)
          REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (assignee_id)
      );
      CREATE INDEX contacts_org_created_idx ON contacts (organization_id, created_at DESC, id);
      CREATE INDEX contacts_org_company_idx ON contacts (organization_id, company_id);
      CREATE INDEX contacts_phones_idx ON contacts USING gin (phones);
      CREATE INDEX contacts_emails_idx ON contacts USING gin (emails);
      CREATE INDEX contacts_tags_idx ON contacts USING gin (tags);
      SELECT enable_tenant_rls('contacts');

      -- One row per (organization, E.164 phone): the lookup for any written form of a number, and the
      -- guard that two contacts never share a phone, even when created concurrently.
      CREATE TABLE contact_phones (
        organization_id uuid NOT NULL,
        phone text NOT NULL CHECK (phone ~ '^\\+[1-9][0-9]{6,14}$'),
        contact_id uuid NOT NULL,
        PRIMARY KEY (organization_id, phone),
        CONSTRAINT contact_phones_contact_fkey FOREIGN KEY (organization_id, contact_id)
          REFERENCES contacts (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX contact_phones_contact_idx ON contact_phones (organization_id, contact_id);
      SELECT enable_tenant_rls('contact_phones');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_phones, contacts, companies`);
  }
}
