import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver } from '@engage/platform/testing';
import { createTestTenant, startRuleEngineApp } from '../testing/automation-test-app';
import { engineHarness, type Run } from '../testing/engine-harness';
import { RuleWebhookDelivery } from './rule-webhook.job';

// A rule's webhooks are delivered by jobs: the engine goes on with the rule's other actions while a
// receiver takes its time, and the run gets its outcome when the last delivery ends.
describe('rule webhooks delivered by jobs', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  const cert = createSelfSignedCert();
  const held: ServerResponse[] = [];
  const flaky = new Set<string>();
  const h = engineHarness(
    () => app,
    () => runtime,
  );

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, (request, res) => {
      if (request.path.startsWith('/hold')) {
        held.push(res);
        return undefined;
      }
      // A flaky receiver fails the first POST to each path, then takes it.
      if (request.path.startsWith('/flaky') && !flaky.has(request.path)) {
        flaky.add(request.path);
        return { status: 503, body: 'busy' };
      }
      return { status: 200, body: 'ok' };
    });
    ({ app, runtime, close } = await startRuleEngineApp(cert.certPath));
  });

  afterAll(async () => {
    await close();
    await receiver.close();
  });

  const receivedOn = (path: string) => receiver.received.filter((request) => request.path === path);
  const runsOf = (tenant: Parameters<typeof h.read>[0]) => h.read<Run>(tenant, 'automation_runs?order=started_at.asc');

  it('should run the actions after a webhook while its receiver is still answering, then give the run its outcome', async () => {
    const tenant = await createTestTenant(app);
    const path = `/hold/${randomUUID()}`;
    const ruleId = await h.createRule(tenant, {
      name: 'Tell the warehouse',
      event: 'contact.created',
      actions: [
        { type: 'send_webhook', url: `https://127.0.0.1:${receiver.port}${path}` },
        { type: 'add_contact_tags', tags: ['announced'] },
      ],
    });
    const created = await h.rest('POST', tenant, 'contacts', { first_name: 'Ada', phones: ['+201001234500'] });
    const contactId = created.json()[0].id as string;

    // The receiver has the POST and has not answered: the tag is there, the run is delivering.
    const [delivering] = await h.until(
      () => runsOf(tenant),
      (runs) => runs[0]?.status === 'delivering' && held.length === 1,
    );
    expect(delivering).toMatchObject({ rule_id: ruleId, status: 'delivering', finished_at: null });
    expect(delivering.actions).toEqual([
      { type: 'send_webhook', status: 'pending' },
      { type: 'add_contact_tags', status: 'succeeded', result: { changed: true } },
    ]);
    expect(await h.read(tenant, `contacts?id=eq.${contactId}&select=tags`)).toEqual([{ tags: ['announced'] }]);

    held[0].writeHead(200).end('ok');
    const [run] = await h.settledRuns(tenant);
    expect(run.status).toBe('succeeded');
    expect(run.finished_at).not.toBeNull();
    expect(run.actions[0]).toEqual({ type: 'send_webhook', status: 'succeeded', result: { status_code: 200, attempts: 1 } });
    expect(receivedOn(path)).toHaveLength(1);

    // The same attempt run again (a worker that died before its job was done) posts nothing.
    const again = await app
      .get(RuleWebhookDelivery)
      .handle(
        { run_id: run.id, index: 0, url: `https://127.0.0.1:${receiver.port}${path}`, secret: null, body: '{}', attempt: 1, first_at: run.started_at },
        { id: randomUUID(), name: 'automation.rule-webhook', attempt: 2, organizationId: tenant.ctx.organizationId },
      );
    expect(again).toBe('already done');
    expect(receivedOn(path)).toHaveLength(1);
  });

  it('should retry a failing receiver after its pause and record the attempts, leaving a waiting run waiting', async () => {
    const tenant = await createTestTenant(app);
    const path = `/flaky/${randomUUID()}`;
    await h.createRule(tenant, {
      name: 'Ping, then later a note',
      event: 'contact.created',
      actions: [
        { type: 'send_webhook', url: `https://127.0.0.1:${receiver.port}${path}` },
        { type: 'wait', minutes: 60 },
        { type: 'add_note', text: 'An hour later' },
      ],
    });
    await h.rest('POST', tenant, 'contacts', { first_name: 'Grace', phones: ['+201001234501'] });

    const [run] = await h.until(
      () => runsOf(tenant),
      (runs) => runs[0]?.actions[0]?.status === 'succeeded',
    );
    expect(run.status).toBe('waiting');
    expect(run.resume_at).not.toBeNull();
    expect(run.finished_at).toBeNull();
    expect(run.actions[0]).toEqual({ type: 'send_webhook', status: 'succeeded', result: { status_code: 200, attempts: 2 } });
    expect(run.actions[1]).toMatchObject({ type: 'wait', status: 'succeeded' });
    expect(receivedOn(path)).toHaveLength(2);
  });
});
