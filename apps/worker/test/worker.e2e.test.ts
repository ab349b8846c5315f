import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { EventSubscriptions, type PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { WorkerAppModule } from '../src/worker-app.module';

const received: DomainEvent[] = [];

// A consuming context as it will look: it registers its subscription while modules initialise.
@Injectable()
class ProbeConsumer implements OnModuleInit {
  constructor(private readonly subscriptions: EventSubscriptions) {}

  onModuleInit(): void {
    this.subscriptions.add({ consumer: 'probe', sources: ['probe'], handle: async (event) => void received.push(event) });
  }
}

@Module({ providers: [ProbeConsumer] })
class ProbeModule {}

describe('worker app', () => {
  let runtime: PlatformRuntime;
  let app: INestApplicationContext;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
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
    const event = createEvent({ type: 'probe.happened', source: 'probe', organizationId: org.organizationId, aggregateId: 'p1', payload: { n: 1 } });
    await runtime.db.inTenant(org, (tx) => tx.emit([event]));
    const deadline = Date.now() + 5000;
    while (!received.some((e) => e.id === event.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received.filter((e) => e.id === event.id)).toEqual([event]);
  });

  it('should refuse two consumers with the same name', () => {
    const subscriptions = app.get(EventSubscriptions);
    expect(() => subscriptions.add({ consumer: 'probe', sources: ['x'], handle: async () => undefined })).toThrow(/registered twice/);
  });
});
