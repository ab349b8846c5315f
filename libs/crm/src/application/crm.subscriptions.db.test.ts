import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations, OrganizationService } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { CrmModule } from '../crm.module';
import { crmMigrations } from '../index';

describe('CRM event consumers', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    // role all: the outbox relay and the consumers run in this process, as with npm start.
    ({ runtime, app, close } = await startTestApp([CrmModule], { role: 'all', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  it('should give a new organization its default pipeline once identity announces it', async () => {
    const org = await app
      .get(OrganizationService)
      .createOrganization({ name: 'Fresh', ownerEmail: `fresh.${Date.now()}@example.com`, ownerPassword: 'fresh password 1' });
    const stagesOf = () =>
      runtime.db.asSystem((tx) =>
        tx.query<{ key: string }>(
          'SELECT s.key FROM pipelines p JOIN pipeline_stages s ON s.pipeline_id = p.id WHERE p.organization_id = $1 AND p.is_default ORDER BY s.position',
          [org.organization_id],
        ),
      );
    const deadline = Date.now() + 5000;
    let stages = await stagesOf();
    while (stages.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      stages = await stagesOf();
    }
    expect(stages.map((s) => s.key)).toEqual(['LEAD', 'QUALIFIED', 'PROPOSAL', 'NEGOTIATION', 'CLOSED_WON', 'CLOSED_LOST']);
  });
});
