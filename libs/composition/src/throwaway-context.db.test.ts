import { Inject, Injectable, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createTestTenant } from '@engage/identity/testing';
import {
  type Config,
  CONFIG,
  ConfigError,
  createHttpApp,
  defineContext,
  defineJob,
  defineSchedule,
  EventCatalogue,
  intSetting,
  type JobHandler,
  JobsModule,
  loadConfig,
  PlatformModule,
  type PlatformRuntime,
  type RecordWriter,
  renderEnvExample,
  settingsOf,
  type Tx,
} from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver, startTestRuntime } from '@engage/platform/testing';
import { defineEvent, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { compose, CONTEXT_SETTINGS, CONTEXTS } from './index';

// A throwaway context, built only from a manifest, as docs/architecture.md says to add one: a
// migration, a table bound to its writer, an event with a webhook contract.
type Gadget = { id: string; organization_id: string; name: string; internal_note: string | null };
const GADGET_CREATED = defineEvent<{ gadget: Gadget; actor_id: string | null }>({
  name: 'gadget.created',
  source: 'gadgets',
  version: 1,
  description: 'a gadget was created',
  webhook: { record: 'gadget', fields: ['id', 'name'] },
});

class CreateGadgets1799999999001 implements MigrationInterface {
  name = 'CreateGadgets1799999999001';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE gadgets (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), organization_id uuid NOT NULL REFERENCES organizations(id),
        name text NOT NULL, internal_note text);
      SELECT enable_tenant_rls('gadgets');`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gadgets');
  }
}

const GADGET_SETTINGS = {
  GADGET_NAME_MAX: intSetting({ group: 'gadgets', default: 100, min: 1, max: 1000, description: 'longest gadget name accepted' }),
};

@Injectable()
class GadgetsWriter implements RecordWriter {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  async create(tx: Tx, ctx: RequestContext, body: Record<string, unknown>) {
    const name = String(body.name);
    if (name.length > settingsOf(this.config, GADGET_SETTINGS).GADGET_NAME_MAX) throw ValidationFailed('gadget.name_too_long', 'the name is too long');
    const insert = 'INSERT INTO gadgets (organization_id, name, internal_note) VALUES ($1, $2, $3) RETURNING *';
    const [gadget] = await tx.query<Gadget>(insert, [ctx.organizationId, name, 'kept inside']);
    await tx.emit([GADGET_CREATED.create({ organizationId: ctx.organizationId, aggregateId: gadget.id, payload: { gadget, actor_id: ctx.userId } })]);
    return gadget;
  }
  async update(_tx: Tx, _ctx: RequestContext, id: string): Promise<object> {
    throw NotFound('gadget', id);
  }
  async remove(_tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    throw NotFound('gadget', id);
  }
}

// Its schedule's job: counts the gadgets into the log of the test (run by the worker's job runner).
const tallies: number[] = [];
@Injectable()
class GadgetsTally implements JobHandler {
  constructor(@Inject(CONFIG) private readonly config: Config) {}
  async handle(): Promise<void> {
    tallies.push(settingsOf(this.config, GADGET_SETTINGS).GADGET_NAME_MAX);
  }
}
const GADGETS_TALLY = defineJob({ name: 'gadgets.tally', handler: GadgetsTally });

@Module({ providers: [GadgetsWriter, GadgetsTally] })
class GadgetsModule {}

const gadgetsManifest = defineContext({
  name: 'gadgets',
  module: GadgetsModule,
  migrations: [CreateGadgets1799999999001],
  tables: [
    {
      table: { name: 'gadgets', writable: true, columns: { id: 'uuid', organization_id: 'uuid', name: 'text' }, readable: ['id', 'organization_id', 'name'] },
      writer: GadgetsWriter,
    },
  ],
  publishes: [GADGET_CREATED],
  consumes: {},
  settings: GADGET_SETTINGS,
  jobs: { schedules: [defineSchedule({ job: GADGETS_TALLY, everyMs: 3_600_000 })] },
});

const SECTION_6_KINDS = [
  'contact.created',
  'contact.updated',
  'contact.assigned',
  'deal.created',
  'deal.updated',
  'deal.stage.changed',
  'deal.assigned',
  'conversation.created',
  'conversation.assigned',
  'conversation.status.changed',
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'broadcast.response',
  'zoom.recording.completed',
];

describe('the composition', () => {
  it('should assemble the 17 webhook kinds of §6 from the manifests, every one produced', () => {
    const catalogue = new EventCatalogue(compose(CONTEXTS).events);
    expect(
      catalogue
        .webhookKinds()
        .map((kind) => kind.name)
        .sort(),
    ).toEqual([...SECTION_6_KINDS].sort());
    expect(catalogue.webhookKinds().filter((kind) => !kind.produced)).toEqual([]);
  });

  describe('with a throwaway context added by its manifest alone', () => {
    const cert = createSelfSignedCert();
    let receiver: HttpsReceiver;
    let runtime: PlatformRuntime;
    let app: NestFastifyApplication;

    beforeAll(async () => {
      receiver = await startHttpsReceiver(cert);
      const composed = compose([...CONTEXTS, gadgetsManifest]);
      const env = { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath, GADGET_NAME_MAX: '12' };
      runtime = await startTestRuntime({ role: 'all', migrations: composed.migrations, env });
      const imports = [PlatformModule.forRoot(runtime), ...composed.modules, JobsModule.forRoot(runtime, composed.jobs)];
      app = await createHttpApp(runtime, { module: class Root {}, imports });
    });
    afterAll(async () => {
      await app?.close();
      await runtime?.close();
      await receiver?.close();
    });

    it('should serve its table through the data API, its writer behind it, and deliver its event to a webhook subscribed to it', async () => {
      const tenant = await createTestTenant(app);
      const config = await app.inject({
        method: 'POST',
        url: '/rest/v1/webhook_configurations',
        headers: tenant.session,
        payload: { name: 'gadgets', url: `${receiver.url}/gadgets`, events: ['gadget.created'], secret: null },
      });
      expect(config.statusCode).toBe(201);
      const representation = { ...tenant.session, prefer: 'return=representation' };
      const created = await app.inject({ method: 'POST', url: '/rest/v1/gadgets', headers: representation, payload: { name: 'Sprocket' } });
      expect(created.statusCode).toBe(201);
      const [gadget] = created.json() as { id: string; name: string }[];
      // Its setting reaches its code: GADGET_NAME_MAX=12.
      const tooLong = await app.inject({ method: 'POST', url: '/rest/v1/gadgets', headers: tenant.session, payload: { name: 'Sprocket deluxe' } });
      expect(tooLong.statusCode).toBe(400);
      const read = await app.inject({ method: 'GET', url: '/rest/v1/gadgets?select=*', headers: tenant.session });
      expect(read.json()).toEqual([{ id: gadget.id, organization_id: tenant.ctx.organizationId, name: 'Sprocket' }]);
      // A kind no manifest declares is refused.
      const unknownKind = { name: 'x', url: `${receiver.url}/x`, events: ['gadget.exploded'] };
      const unknown = await app.inject({ method: 'POST', url: '/rest/v1/webhook_configurations', headers: tenant.session, payload: unknownKind });
      expect(unknown.statusCode).toBe(400);

      const until = Date.now() + 15_000;
      while (!receiver.received.some((request) => request.path === '/gadgets') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
      const delivered = receiver.received.find((request) => request.path === '/gadgets');
      expect(delivered && JSON.parse(delivered.body)).toMatchObject({ event: 'gadget.created', data: { id: gadget.id, name: 'Sprocket' } });
      // Only the contract's fields leave the service.
      expect(Object.keys(JSON.parse(delivered!.body).data).sort()).toEqual(['id', 'name']);
    }, 30_000);

    it('should register its schedule and run its job in the worker, with its setting', async () => {
      const [schedule] = await runtime.db.systemQuery<{ name: string }>(`SELECT name FROM job_schedules WHERE name = 'gadgets.tally'`);
      expect(schedule).toEqual({ name: 'gadgets.tally' });
      // One tick, as the schedule would enqueue it.
      const tick = { tick: new Date().toISOString() };
      await runtime.db.asSystem((tx) => tx.query(`INSERT INTO jobs (name, payload, max_attempts) VALUES ('gadgets.tally', $1, 1)`, [tick]));
      const until = Date.now() + 15_000;
      while (tallies.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(tallies).toEqual([12]);
    });

    it('should check its setting when the apps load the config, and list it in .env.example', () => {
      const groups = [...CONTEXT_SETTINGS, GADGET_SETTINGS];
      expect(() => loadConfig({ GADGET_NAME_MAX: 'many' }, groups)).toThrow(ConfigError);
      expect(renderEnvExample(groups)).toContain('# --- gadgets ---\n# longest gadget name accepted\nGADGET_NAME_MAX=100\n');
    });
  });
});
