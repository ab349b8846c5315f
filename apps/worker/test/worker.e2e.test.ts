import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { EventSubscriptions, type PlatformRuntime } from '@engage/platform';
import { CONTEXT_JOBS, CONTEXT_MIGRATIONS } from '@engage/composition';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { ORGANIZATION_CREATED } from '@engage/identity';
import { WorkerAppModule } from '../src/worker-app.module';

const received: DomainEvent[] = [];

// A consumer as a context registers one while modules initialise: named after its context (the
// CRM, whose manifest declares it consumes identity's topic), reading a topic its context declares.
@Injectable()
class ProbeConsumer implements OnModuleInit {
  constructor(private readonly subscriptions: EventSubscriptions) {}

  onModuleInit(): void {
    this.subscriptions.add({ consumer: 'crm.probe', sources: [ORGANIZATION_CREATED.source], handle: async (event) => void received.push(event) });
  }
}

@Module({ providers: [ProbeConsumer] })
class ProbeModule {}

describe('worker app', () => {
  let runtime: PlatformRuntime;
  let app: INestApplicationContext;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker', migrations: CONTEXT_MIGRATIONS, env: { JOBS_POLL_MS: '50' } });
    const root = WorkerAppModule.forRoot(runtime);
    app = await NestFactory.createApplicationContext({ ...root, imports: [...(root.imports ?? []), ProbeModule] }, { logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  it('should relay an event committed by a request to the consumers registered by contexts', async () => {
    const org = await makeOrganization(runtime);
    const event = createEvent({
      type: 'probe.happened',
      source: ORGANIZATION_CREATED.source,
      organizationId: org.organizationId,
      aggregateId: 'p1',
      payload: { n: 1 },
    });
    await runtime.db.inTenant(org, (tx) => tx.emit([event]));
    const deadline = Date.now() + 5000;
    while (!received.some((e) => e.id === event.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received.filter((e) => e.id === event.id)).toEqual([event]);
  });

  it('should refuse two consumers with the same name', () => {
    const subscriptions = app.get(EventSubscriptions);
    expect(() => subscriptions.add({ consumer: 'crm.probe', sources: [ORGANIZATION_CREATED.source], handle: async () => undefined })).toThrow(
      /registered twice/,
    );
  });

  it("should refuse a consumer its context's manifest does not declare", () => {
    const subscriptions = app.get(EventSubscriptions);
    expect(() => subscriptions.add({ consumer: 'probe', sources: ['probe'], handle: async () => undefined })).toThrow(
      /"probe" is not named after a composed context/,
    );
    // A topic none of the CRM's declared events or contracts come from.
    expect(() => subscriptions.add({ consumer: 'crm.sneaky', sources: ['nowhere'], handle: async () => undefined })).toThrow(/does not declare/);
  });

  it("should register every context's schedules and run their jobs with the contexts' services", async () => {
    const names = ['platform.outbox-purge', 'platform.dead-jobs-purge', ...CONTEXT_JOBS.schedules.map((schedule) => schedule.job.name)];
    const registered = await runtime.db.systemQuery<{ name: string }>(`SELECT name FROM job_schedules ORDER BY name`);
    expect(registered.map((row) => row.name)).toEqual([...names].sort());
    // One tick of each, as a schedule would enqueue it: each handler runs and its job is done (deleted), none dead.
    await runtime.db.asSystem(async (tx) => {
      for (const name of names) await tx.query(`INSERT INTO jobs (name, payload, max_attempts) VALUES ($1, $2, 1)`, [name, { tick: new Date().toISOString() }]);
    });
    const deadline = Date.now() + 15_000;
    type Left = { name: string; state: string; last_error: string | null };
    const left = () => runtime.db.systemQuery<Left>(`SELECT name, state, last_error FROM jobs WHERE name = ANY($1)`, [names]);
    let rows = await left();
    while (rows.some((row) => row.state !== 'dead') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await left();
    }
    expect(rows).toEqual([]);
  });
});
