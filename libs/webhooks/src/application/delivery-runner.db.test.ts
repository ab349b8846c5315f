import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EventSubscriptions, OutboundClient, type PlatformRuntime, SecretBox } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver } from '@engage/platform/testing';
import { createEvent, type Clock, type RequestContext, systemClock } from '@engage/shared-kernel';
import { listDevMailbox } from '@engage/identity';
import { createTestTenant, startWebhooksApp } from '../testing/webhooks-test-app';
import { DisabledNotifier } from './disabled-notifier';
import { ConfigurationService } from './configuration.service';
import { AttemptRecorder } from './attempt-recorder';
import { type AttemptOutcome, type DisabledNotice, DeliveryRunner, type SentAttempt } from './delivery-runner';
import type { DeliveryJob } from '../infrastructure/webhook.sql';
import { WebhookActions } from './webhook-actions.service';
import { DELIVERIES_CONSUMER } from './webhooks.subscriptions';
import { CONTACT_CREATED } from '@engage/crm';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

class TestClock implements Clock {
  constructor(public at: number) {}
  now(): Date {
    return new Date(this.at);
  }
}

// The runner with an injected clock (no worker loop runs in this api-only app).
describe('delivery runner: retries, disabling, claims', () => {
  const cert = createSelfSignedCert();
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  let outbound: OutboundClient;
  const statusOf = new Map<string, number>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, (request) => ({ status: statusOf.get(request.path) ?? 200, body: 'x' }));
    ({ app, runtime, close } = await startWebhooksApp({ role: 'api', env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' } }));
    outbound = new OutboundClient({ allowHosts: ['127.0.0.1'], extraCa: cert.cert });
  });
  afterAll(async () => {
    await receiver.close();
    await close();
  });

  const runner = (clock: Clock) =>
    new DeliveryRunner(runtime.db, app.get(SecretBox), outbound, clock, {
      timeoutMs: 5000,
      random: () => 0.5,
      onDisabled: (notice) => app.get(DisabledNotifier).notify(notice),
    });
  const mailTo = async (email: string) => (await listDevMailbox(runtime.config.DATA_DIR)).filter((mail) => mail.to === email);
  const org = async () => ({ ...(await createTestTenant(app)).ctx, role: 'OWNER' as const });
  const configure = (ctx: RequestContext, path: string) =>
    runtime.db.inTenant(ctx, (tx) =>
      app.get(ConfigurationService).createIn(tx, ctx, { name: path, url: `${receiver.url}${path}`, events: [CONTACT_CREATED.name] }),
    );
  const enqueue = (ctx: RequestContext, webhookId: string, dueAt: number, count = 1) =>
    runtime.db.inTenant(ctx, async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const [row] = await tx.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (organization_id, webhook_id, event, body, next_attempt_at) VALUES (app_org_id(), $1, $4, $2, $3) RETURNING id`,
          [
            webhookId,
            JSON.stringify({ event: CONTACT_CREATED.name, timestamp: new Date(dueAt).toISOString(), data: { n: i } }),
            new Date(dueAt),
            CONTACT_CREATED.name,
          ],
        );
        ids.push(row.id);
      }
      return ids;
    });
  const configuration = (ctx: RequestContext, id: string) =>
    runtime.db.inTenant(
      ctx,
      async (tx) =>
        (
          await tx.query<{ is_active: boolean; disabled_reason: string | null; failing_since: Date | null }>(
            'SELECT * FROM webhook_configurations WHERE id = $1',
            [id],
          )
        )[0],
    );
  const logsOf = (ctx: RequestContext, webhookId: string) =>
    runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ status: string; attempt: number; error_message: string | null; response_code: number | null }>(
        'SELECT * FROM webhook_logs WHERE webhook_id = $1 ORDER BY created_at, attempt',
        [webhookId],
      ),
    );

  it('should retry after 30 s, 2 min, 10 min, 1 h, 6 h and 24 h, then give up', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/schedule');
    statusOf.set('/schedule', 503);
    const clock = new TestClock(Date.parse('2030-01-01T00:00:00Z'));
    const [deliveryId] = await enqueue(ctx, hook.id, clock.at);
    const sender = runner(clock);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      const jobs = (await sender.claim(50, 4)).filter((job) => job.webhook_id === hook.id);
      expect(jobs.map((job) => job.id)).toEqual([deliveryId]);
      const outcome = await sender.attempt(jobs[0]);
      expect(outcome).toMatchObject({ attempt, status_code: 503, success: false, status: attempt < 7 ? 'retrying' : 'failed' });
      if (outcome.next_attempt_at === null) break;
      const next = Date.parse(outcome.next_attempt_at);
      delays.push(next - clock.at);
      clock.at = next - 1;
      expect((await sender.claim(50, 4)).filter((job) => job.webhook_id === hook.id)).toEqual([]);
      clock.at = next;
    }
    expect(delays).toEqual([30_000, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, DAY]);
    clock.at += 30 * DAY;
    expect((await sender.claim(50, 4)).filter((job) => job.webhook_id === hook.id)).toEqual([]);
    const logs = await logsOf(ctx, hook.id);
    expect(logs.map((l) => [l.attempt, l.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'retrying'],
      [4, 'retrying'],
      [5, 'retrying'],
      [6, 'retrying'],
      [7, 'failed'],
    ]);
    expect(logs[0]).toMatchObject({ response_code: 503, error_message: 'HTTP 503: x' });
    expect(await configuration(ctx, hook.id)).toMatchObject({ is_active: true, failing_since: new Date('2030-01-01T00:00:00Z') });
  });

  it('should disable a configuration at once on 410 Gone and tell the admins', async () => {
    const tenant = await createTestTenant(app);
    const ctx = { ...tenant.ctx, role: 'OWNER' as const };
    const hook = await configure(ctx, '/gone');
    statusOf.set('/gone', 410);
    const clock = new TestClock(Date.parse('2030-02-01T00:00:00Z'));
    await enqueue(ctx, hook.id, clock.at, 3);
    const sender = runner(clock);
    const [job] = (await sender.claim(50, 1)).filter((j) => j.webhook_id === hook.id);
    expect(await sender.attempt(job)).toMatchObject({ status: 'failed', status_code: 410, next_attempt_at: null });
    expect(await configuration(ctx, hook.id)).toMatchObject({
      is_active: false,
      disabled_reason: 'the endpoint answered 410 Gone at 2030-02-01T00:00:00.000Z',
    });
    expect((await logsOf(ctx, hook.id)).map((l) => l.error_message)).toEqual([
      'HTTP 410: x',
      'webhook disabled: the endpoint answered 410 Gone at 2030-02-01T00:00:00.000Z',
    ]);
    expect((await sender.claim(50, 4)).filter((j) => j.webhook_id === hook.id)).toEqual([]);
    statusOf.set('/gone', 200);
    const reenabled = await runtime.db.inTenant(ctx, (tx) => app.get(ConfigurationService).updateIn(tx, ctx, hook.id, { is_active: true }));
    expect(reenabled).toMatchObject({ is_active: true, disabled_reason: null, failing_since: null });
    expect((await sender.claim(50, 4)).filter((j) => j.webhook_id === hook.id)).toHaveLength(2);
    const [mail] = await mailTo(tenant.email);
    expect(mail).toMatchObject({ subject: 'Webhook "/gone" was disabled' });
    expect(mail.text).toContain('Reason: the endpoint answered 410 Gone at 2030-02-01T00:00:00.000Z.');
  });

  it('should disable a configuration failing continuously for 5 days, and not one that succeeded meanwhile', async () => {
    const start = Date.parse('2030-03-01T00:00:00Z');
    for (const recovers of [false, true]) {
      const ctx = await org();
      const path = recovers ? '/recovers' : '/dead';
      const hook = await configure(ctx, path);
      const clock = new TestClock(start);
      const sender = runner(clock);
      const attemptDue = async () => {
        await enqueue(ctx, hook.id, clock.at);
        const [job] = (await sender.claim(50, 4)).filter((j) => j.webhook_id === hook.id);
        return sender.attempt(job);
      };
      statusOf.set(path, 500);
      await attemptDue();
      if (recovers) {
        clock.at = start + 3 * DAY;
        statusOf.set(path, 200);
        expect((await attemptDue()).success).toBe(true);
        statusOf.set(path, 500);
      }
      clock.at = start + 5 * DAY + 1000;
      await attemptDue();
      const config = await configuration(ctx, hook.id);
      if (recovers) {
        expect(config).toMatchObject({ is_active: true, disabled_reason: null });
      } else {
        expect(config).toMatchObject({ is_active: false, disabled_reason: 'failing continuously since 2030-03-01T00:00:00.000Z (5 days)' });
        expect((await logsOf(ctx, hook.id)).at(-1)).toMatchObject({
          status: 'failed',
          error_message: 'webhook disabled: failing continuously since 2030-03-01T00:00:00.000Z (5 days)',
        });
      }
    }
  });

  it('should hold at most the per-endpoint limit in flight, across claimers', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/limited');
    const clock = new TestClock(Date.parse('2031-01-01T00:00:00Z'));
    await enqueue(ctx, hook.id, clock.at, 10);
    const first = (await runner(clock).claim(100, 3)).filter((j) => j.webhook_id === hook.id);
    expect(first).toHaveLength(3);
    expect((await runner(clock).claim(100, 3)).filter((j) => j.webhook_id === hook.id)).toEqual([]);
    await runner(clock).attempt(first[0]);
    expect((await runner(clock).claim(100, 3)).filter((j) => j.webhook_id === hook.id)).toHaveLength(1);
  });

  it('should fill free slots oldest due first, whatever the backlog of one endpoint, skipping future and inactive ones', async () => {
    const ctx = await org();
    const busy = await configure(ctx, '/backlog');
    const quiet = await configure(ctx, '/quiet');
    const off = await configure(ctx, '/off');
    // Earlier than every other test's clock, so only this test's rows are due.
    const clock = new TestClock(Date.parse('2020-01-01T00:00:00Z'));
    const backlog = await enqueue(ctx, busy.id, clock.at - MINUTE, 50);
    const [quietOldest] = await enqueue(ctx, quiet.id, clock.at - 2 * MINUTE);
    const [quietLater] = await enqueue(ctx, quiet.id, clock.at - 1000);
    const [quietFuture] = await enqueue(ctx, quiet.id, clock.at + MINUTE);
    await enqueue(ctx, off.id, clock.at - 5 * MINUTE, 2);
    await runtime.db.inTenant(ctx, (tx) => tx.execute('UPDATE webhook_configurations SET is_active = false WHERE id = $1', [off.id]));
    const sender = runner(clock);
    const first = await sender.claim(3, 4);
    expect(first.map((job) => job.webhook_id).sort()).toEqual([busy.id, busy.id, quiet.id].sort());
    expect(first.find((job) => job.webhook_id === quiet.id)!.id).toBe(quietOldest);
    const second = await sender.claim(100, 4);
    expect(second.filter((job) => job.webhook_id === busy.id)).toHaveLength(2);
    expect(second.filter((job) => job.webhook_id === quiet.id).map((job) => job.id)).toEqual([quietLater]);
    expect(second.every((job) => job.attempts === 1 && backlog.concat(quietLater).includes(job.id))).toBe(true);
    expect(await sender.claim(100, 4)).toEqual([]);
    await sender.attempt(first.find((job) => job.webhook_id === busy.id)!);
    expect((await sender.claim(100, 4)).map((job) => job.webhook_id)).toEqual([busy.id]);
    clock.at += MINUTE;
    expect((await sender.claim(100, 4)).map((job) => job.id)).toEqual([quietFuture]);
  });

  it('should hand each delivery to one of several concurrent claimers, within the per-endpoint limit', async () => {
    const ctx = await org();
    const hooks = [await configure(ctx, '/split-1'), await configure(ctx, '/split-2')];
    const clock = new TestClock(Date.parse('2019-01-01T00:00:00Z'));
    const ids = [...(await enqueue(ctx, hooks[0].id, clock.at, 10)), ...(await enqueue(ctx, hooks[1].id, clock.at, 10))];
    const batches = await Promise.all([0, 1, 2, 3, 4].map(() => runner(clock).claim(50, 3)));
    const claimed = batches.flat().filter((job) => ids.includes(job.id));
    expect(new Set(claimed.map((job) => job.id)).size).toBe(claimed.length);
    for (const hook of hooks) expect(claimed.filter((job) => job.webhook_id === hook.id)).toHaveLength(3);
  });

  it('should record a batch of attempts of two organizations, each logged, successes and retries alike', async () => {
    const ctx = await org();
    const other = await org();
    const ok = await configure(ctx, '/batch-ok');
    const bad = await configure(ctx, '/batch-bad');
    const theirs = await configure(other, '/batch-theirs');
    statusOf.set('/batch-bad', 500);
    const clock = new TestClock(Date.parse('2018-01-01T00:00:00Z'));
    await runtime.db.inTenant(ctx, (tx) => tx.execute('UPDATE webhook_configurations SET failing_since = $2 WHERE id = $1', [ok.id, new Date(clock.at - DAY)]));
    const ids = [...(await enqueue(ctx, ok.id, clock.at, 3)), ...(await enqueue(ctx, bad.id, clock.at, 2)), ...(await enqueue(other, theirs.id, clock.at, 2))];
    const sender = runner(clock);
    const jobs = (await sender.claim(100, 4)).filter((job) => ids.includes(job.id));
    expect(jobs).toHaveLength(7);
    const sent = await Promise.all(jobs.map((job) => sender.send(job)));
    // Sent but not recorded: the leases still count against the per-endpoint limit.
    expect((await sender.claim(100, 4)).filter((job) => ids.includes(job.id))).toEqual([]);
    const outcomes = await sender.recordMany(sent);
    const recorded = outcomes.map((outcome) => {
      if (outcome instanceof Error) throw outcome;
      return outcome;
    });
    expect(recorded.map((o) => o.delivery_id)).toEqual(jobs.map((job) => job.id));
    expect(recorded.map((o) => o.status).sort()).toEqual(['retrying', 'retrying', 'success', 'success', 'success', 'success', 'success']);
    expect(new Set(recorded.map((o) => o.log_id)).size).toBe(7);
    expect((await logsOf(ctx, ok.id)).map((l) => [l.status, l.response_code, l.attempt])).toEqual([
      ['success', 200, 1],
      ['success', 200, 1],
      ['success', 200, 1],
    ]);
    expect((await logsOf(ctx, bad.id)).map((l) => l.status)).toEqual(['retrying', 'retrying']);
    expect(await logsOf(ctx, theirs.id)).toEqual([]);
    expect((await logsOf(other, theirs.id)).map((l) => l.status)).toEqual(['success', 'success']);
    expect((await configuration(ctx, ok.id)).failing_since).toBeNull();
    expect((await configuration(ctx, bad.id)).failing_since).not.toBeNull();
    const states = await runtime.db.asSystem((tx) =>
      tx.query<{ status: string; locked_until: Date | null }>('SELECT status, locked_until FROM webhook_deliveries WHERE id = ANY($1::uuid[])', [ids]),
    );
    expect(states.every((row) => row.locked_until === null)).toBe(true);
    expect(states.filter((row) => row.status === 'success')).toHaveLength(5);
  });

  it('should record the rest of a batch when one delivery vanished meanwhile (its configuration deleted)', async () => {
    const ctx = await org();
    const kept = await configure(ctx, '/kept');
    const deleted = await configure(ctx, '/deleted');
    statusOf.set('/deleted', 500);
    const clock = new TestClock(Date.parse('2018-02-01T00:00:00Z'));
    const ids = [...(await enqueue(ctx, kept.id, clock.at, 2)), ...(await enqueue(ctx, deleted.id, clock.at, 1))];
    const sender = runner(clock);
    const jobs = (await sender.claim(100, 4)).filter((job) => ids.includes(job.id));
    const sent = await Promise.all(jobs.map((job) => sender.send(job)));
    await runtime.db.inTenant(ctx, (tx) => tx.execute('DELETE FROM webhook_configurations WHERE id = $1', [deleted.id]));
    const outcomes = await sender.recordMany(sent);
    jobs.forEach((job, i) => expect(outcomes[i] instanceof Error).toBe(job.webhook_id === deleted.id));
    expect((await logsOf(ctx, kept.id)).map((l) => l.status)).toEqual(['success', 'success']);
  });

  it('should send again, not lose, a delivery whose worker died between sending and recording', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/crash');
    const clock = new TestClock(Date.parse('2018-03-01T00:00:00Z'));
    const [id] = await enqueue(ctx, hook.id, clock.at);
    const [job] = (await runner(clock).claim(100, 4)).filter((j) => j.id === id);
    await runner(clock).send(job); // posted; the process "dies" before recording it
    expect(receiver.received.filter((r) => r.path === '/crash')).toHaveLength(1);
    clock.at += 60_000;
    expect((await runner(clock).claim(100, 4)).filter((j) => j.id === id)).toEqual([]);
    clock.at += 5000 + 60_000; // the lease (timeout + 60 s) has expired
    const [again] = (await runner(clock).claim(100, 4)).filter((j) => j.id === id);
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(await runner(clock).attempt(again)).toMatchObject({ success: true, attempt: 2 });
    const received = receiver.received.filter((r) => r.path === '/crash');
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect((await logsOf(ctx, hook.id)).map((l) => [l.status, l.attempt])).toEqual([['success', 2]]);
  });

  it('should not record twice an attempt recorded again after a record whose commit went unseen', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/unseen-commit');
    statusOf.set('/unseen-failure', 503);
    const failing = await configure(ctx, '/unseen-failure');
    const clock = new TestClock(Date.parse('2016-05-01T00:00:00Z'));
    const ids = [...(await enqueue(ctx, hook.id, clock.at)), ...(await enqueue(ctx, failing.id, clock.at))];
    const sender = runner(clock);
    const sent = await Promise.all((await sender.claim(100, 4)).filter((job) => ids.includes(job.id)).map((job) => sender.send(job)));
    const first = await sender.recordMany(sent);
    // The worker saw the record fail (its COMMIT's answer lost) and records the attempts again.
    clock.at += 2000;
    expect(await sender.recordMany(sent, { maybeRecorded: true })).toEqual(first.map((outcome) => ({ ...(outcome as AttemptOutcome), next_attempt_at: null })));
    expect((await logsOf(ctx, hook.id)).map((l) => [l.status, l.attempt])).toEqual([['success', 1]]);
    expect((await logsOf(ctx, failing.id)).map((l) => [l.status, l.attempt])).toEqual([['retrying', 1]]);
    expect((await configuration(ctx, failing.id)).failing_since).toEqual(new Date(clock.at - 2000));
  });

  it("should hand the slot a success frees to its endpoint's next due delivery, not for a late record or an inactive endpoint", async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/hand-over');
    const clock = new TestClock(Date.parse('2015-03-01T00:00:00Z'));
    const ids: string[] = [];
    for (const n of [0, 1, 2]) ids.push(...(await enqueue(ctx, hook.id, clock.at + n)));
    clock.at += 10;
    const sender = runner(clock);
    const mine = async () => (await sender.claim(100, 1)).filter((job) => job.webhook_id === hook.id);
    const [first] = await mine();
    expect(first.id).toBe(ids[0]);
    const sent = await sender.send(first);
    const handed: DeliveryJob[] = [];
    expect(await sender.recordMany([sent], { handOver: (jobs) => handed.push(...jobs) })).toMatchObject([{ success: true }]);
    // The next oldest, leased in the record's transaction: the endpoint's one slot is still taken.
    expect(handed.map((job) => [job.id, job.attempts, job.url])).toEqual([[ids[1], 1, `${receiver.url}/hand-over`]]);
    expect(await mine()).toEqual([]);
    // Recorded again, known to be perhaps recorded (its commit unseen) or not, the first success
    // frees nothing a second time (the plain repeat logs its attempt again).
    const again: DeliveryJob[] = [];
    await sender.recordMany([sent], { maybeRecorded: true, handOver: (jobs) => again.push(...jobs) });
    await sender.recordMany([{ ...sent, job: { ...sent.job } }], { handOver: (jobs) => again.push(...jobs) });
    expect(again).toEqual([]);
    // An endpoint disabled meanwhile gets none; its slot is free and nothing more is sent.
    await runtime.db.inTenant(ctx, (tx) => tx.execute('UPDATE webhook_configurations SET is_active = false WHERE id = $1', [hook.id]));
    await sender.recordMany([await sender.send(handed[0])], { handOver: (jobs) => again.push(...jobs) });
    expect(again).toEqual([]);
    const states = await runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string; status: string; locked_until: Date | null }>('SELECT id, status, locked_until FROM webhook_deliveries WHERE webhook_id = $1', [
        hook.id,
      ]),
    );
    expect(Object.fromEntries(states.map((row) => [row.id, [row.status, row.locked_until]]))).toEqual({
      [ids[0]]: ['success', null],
      [ids[1]]: ['success', null],
      [ids[2]]: ['pending', null],
    });
    expect((await logsOf(ctx, hook.id)).map((l) => [l.status, l.attempt])).toEqual([
      ['success', 1],
      ['success', 1],
      ['success', 1],
    ]);
  });

  it('should let only the latest attempt set the state of a delivery whose earlier attempt is recorded late', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/late');
    const clock = new TestClock(Date.parse('2017-01-01T00:00:00Z'));
    const [lateWhileInFlight, lateAfterSuccess] = await enqueue(ctx, hook.id, clock.at, 2);
    const sender = runner(clock);
    const sendDue = async () => Promise.all((await sender.claim(100, 4)).filter((job) => job.webhook_id === hook.id).map((job) => sender.send(job)));
    const of = (sent: SentAttempt[], id: string) => sent.find((item) => item.job.id === id)!;
    statusOf.set('/late', 503);
    const first = await sendDue();
    clock.at += 5000 + 60_000 + 1; // both leases expire before the first attempts are recorded
    statusOf.set('/late', 200);
    const second = await sendDue();
    expect(second.map((item) => item.job.attempts)).toEqual([2, 2]);
    // A late failure while the newer attempt is in flight neither frees its lease nor schedules a retry.
    expect(await sender.recordMany([of(first, lateWhileInFlight)])).toMatchObject([{ status: 'retrying', attempt: 1 }]);
    clock.at += 31_000;
    expect((await sender.claim(100, 4)).filter((job) => job.webhook_id === hook.id)).toEqual([]);
    // A late failure after the newer attempt succeeded does not bring the delivery back.
    expect(await sender.recordMany([of(second, lateAfterSuccess)])).toMatchObject([{ status: 'success', attempt: 2 }]);
    expect(await sender.recordMany([of(first, lateAfterSuccess)])).toMatchObject([{ status: 'retrying', attempt: 1 }]);
    expect(await sender.recordMany([of(second, lateWhileInFlight)])).toMatchObject([{ status: 'success', attempt: 2 }]);
    clock.at += DAY;
    expect((await sender.claim(100, 4)).filter((job) => job.webhook_id === hook.id)).toEqual([]);
    const states = await runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ status: string; locked_until: Date | null }>('SELECT status, locked_until FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]),
    );
    expect(states).toEqual([
      { status: 'success', locked_until: null },
      { status: 'success', locked_until: null },
    ]);
    expect((await logsOf(ctx, hook.id)).map((l) => [l.status, l.attempt]).sort()).toEqual([
      ['retrying', 1],
      ['retrying', 1],
      ['success', 2],
      ['success', 2],
    ]);
  });

  it('should not start a failure streak for a failure followed by a success of the same endpoint in one batch', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/flaky');
    const clock = new TestClock(Date.parse('2017-02-01T00:00:00Z'));
    const sender = runner(clock);
    const sendTwo = async (statuses: number[]) => {
      await enqueue(ctx, hook.id, clock.at, 2);
      const jobs = (await sender.claim(100, 4)).filter((job) => job.webhook_id === hook.id && job.attempts === 1);
      const sent: SentAttempt[] = [];
      for (const [i, status] of statuses.entries()) {
        statusOf.set('/flaky', status);
        sent.push(await sender.send(jobs[i]));
      }
      return sender.recordMany(sent);
    };
    expect(await sendTwo([500, 200])).toMatchObject([{ status: 'retrying' }, { status: 'success' }]);
    expect((await configuration(ctx, hook.id)).failing_since).toBeNull();
    clock.at += MINUTE;
    expect(await sendTwo([200, 500])).toMatchObject([{ status: 'success' }, { status: 'retrying' }]);
    expect((await configuration(ctx, hook.id)).failing_since).toEqual(new Date(clock.at));
  });

  it('should record a batch without waiting for the notice of a configuration it disabled', async () => {
    const ctx = await org();
    const gone = await configure(ctx, '/gone-batch');
    const ok = await configure(ctx, '/ok-batch');
    statusOf.set('/gone-batch', 410);
    const clock = new TestClock(Date.parse('2017-03-01T00:00:00Z'));
    const ids = [...(await enqueue(ctx, gone.id, clock.at)), ...(await enqueue(ctx, ok.id, clock.at))];
    const notices: DisabledNotice[] = [];
    // A mail server that never answers.
    const onDisabled = (notice: DisabledNotice) => {
      notices.push(notice);
      return new Promise<void>(() => undefined);
    };
    const sender = new DeliveryRunner(runtime.db, app.get(SecretBox), outbound, clock, { timeoutMs: 5000, random: () => 0.5, onDisabled });
    const jobs = (await sender.claim(100, 4)).filter((job) => ids.includes(job.id));
    const outcomes = await sender.recordMany(await Promise.all(jobs.map((job) => sender.send(job))));
    expect(outcomes.map((outcome) => (outcome as AttemptOutcome).status).sort()).toEqual(['failed', 'success']);
    expect(notices.map((notice) => notice.webhookId)).toEqual([gone.id]);
    expect(await configuration(ctx, gone.id)).toMatchObject({ is_active: false });
  });

  it("should not let one organization's transaction record another organization's attempts (RLS)", async () => {
    const ctx = await org();
    const other = await org();
    const theirs = await configure(other, '/rls-theirs');
    statusOf.set('/rls-failing', 500);
    const failing = await configure(other, '/rls-failing');
    const clock = new TestClock(Date.parse('2017-04-01T00:00:00Z'));
    const ids = [...(await enqueue(other, theirs.id, clock.at)), ...(await enqueue(other, failing.id, clock.at))];
    const sender = runner(clock);
    const sent = await Promise.all((await sender.claim(100, 4)).filter((job) => ids.includes(job.id)).map((job) => sender.send(job)));
    const succeeded = sent.find((item) => item.job.webhook_id === theirs.id)!;
    const failed = sent.find((item) => item.job.webhook_id === failing.id)!;
    const recorder = new AttemptRecorder(clock, () => 0.5);
    // The success statement finds none of their rows; a failure's log cannot point at their configuration.
    expect(await runtime.db.inTenant(ctx, (tx) => recorder.recordIn(tx, [succeeded], () => undefined))).toMatchObject([{ log_id: '' }]);
    await expect(runtime.db.inTenant(ctx, (tx) => recorder.recordIn(tx, [failed], () => undefined))).rejects.toMatchObject({ code: '23503' }); // foreign key
    const states = await runtime.db.inTenant(other, (tx) =>
      tx.query<{ status: string; locked: boolean }>('SELECT status, locked_until IS NOT NULL AS locked FROM webhook_deliveries WHERE id = ANY($1::uuid[])', [
        ids,
      ]),
    );
    expect(states).toEqual([
      { status: 'pending', locked: true },
      { status: 'pending', locked: true },
    ]);
    expect(await runtime.db.asSystem((tx) => tx.query('SELECT 1 FROM webhook_logs WHERE delivery_id = ANY($1::uuid[])', [ids]))).toEqual([]);
    expect((await configuration(other, failing.id)).failing_since).toBeNull();
    // Their own transaction records both.
    expect((await sender.recordMany([succeeded, failed])).map((outcome) => (outcome as AttemptOutcome).status)).toEqual(['success', 'retrying']);
  });

  it('should never deliver a job twice with several claimers', async () => {
    const ctx = await org();
    const paths = ['/c1', '/c2', '/c3'];
    const ids: string[] = [];
    for (const path of paths) ids.push(...(await enqueue(ctx, (await configure(ctx, path)).id, Date.now() - 1000, 20)));
    const claimers = [0, 1, 2, 3].map(() => runner(systemClock));
    await Promise.all(
      claimers.map(async (claimer) => {
        for (;;) {
          const jobs = (await claimer.claim(8, 4)).filter((job) => ids.includes(job.id));
          if (jobs.length === 0 && (await pendingCount(ctx, ids)) === 0) return;
          await Promise.all(jobs.map((job) => claimer.attempt(job)));
          if (jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }),
    );
    const received = receiver.received.filter((r) => paths.includes(r.path));
    expect(received).toHaveLength(60);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(60);
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
  });

  it('should deliver each exactly once within the per-endpoint limit when claims and hand-overs run together', async () => {
    const ctx = await org();
    const paths = ['/both-1', '/both-2'];
    const hooks = [await configure(ctx, paths[0]), await configure(ctx, paths[1])];
    const ids: string[] = [];
    for (const hook of hooks) ids.push(...(await enqueue(ctx, hook.id, Date.now() - 1000, 25)));
    const limit = 3;
    // The leases held per endpoint, read from the table while the claimers run.
    let most = 0;
    let running = true;
    const watching = (async () => {
      while (running) {
        const rows = await runtime.db.inTenant(ctx, (tx) =>
          tx.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::uuid[]) AND status IN ('pending', 'retrying') AND locked_until > now() GROUP BY webhook_id`,
            [hooks.map((hook) => hook.id)],
          ),
        );
        most = Math.max(most, ...rows.map((row) => row.n));
      }
    })();
    const claimers = [0, 1, 2].map(() => runner(systemClock));
    await Promise.all(
      claimers.map(async (claimer) => {
        let jobs: DeliveryJob[] = [];
        for (;;) {
          if (jobs.length === 0) jobs = (await claimer.claim(8, limit)).filter((job) => ids.includes(job.id));
          if (jobs.length === 0) {
            if ((await pendingCount(ctx, ids)) === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 10));
            continue;
          }
          const handed: DeliveryJob[] = [];
          await claimer.recordMany(await Promise.all(jobs.map((job) => claimer.send(job))), { handOver: (more) => handed.push(...more) });
          jobs = handed;
        }
      }),
    );
    running = false;
    await watching;
    const received = receiver.received.filter((r) => paths.includes(r.path));
    expect(received.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(limit);
  });

  const pendingCount = async (ctx: RequestContext, ids: string[]) =>
    (await runtime.db.inTenant(ctx, (tx) => tx.query(`SELECT 1 FROM webhook_deliveries WHERE id = ANY($1::uuid[]) AND status <> 'success'`, [ids]))).length;

  it('should queue one delivery per subscribed active configuration, once per event, inside its organization', async () => {
    const ctx = await org();
    const other = await org();
    const hook = await configure(ctx, '/queued');
    await configure(other, '/queued-other');
    const handler = app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === DELIVERIES_CONSUMER)!;
    const event = createEvent({
      type: CONTACT_CREATED.name,
      source: CONTACT_CREATED.source,
      organizationId: ctx.organizationId,
      aggregateId: 'c1',
      payload: { contact: { id: 'c1' }, actor_id: null },
    });
    await handler.handle(event);
    await handler.handle(event);
    await handler.handle(
      createEvent({ type: 'nobody.declared', source: CONTACT_CREATED.source, organizationId: ctx.organizationId, aggregateId: 'c1', payload: {} }),
    );
    const mine = await runtime.db.inTenant(ctx, (tx) => tx.query<{ webhook_id: string; body: string }>('SELECT webhook_id, body FROM webhook_deliveries'));
    expect(mine.map((d) => d.webhook_id)).toEqual([hook.id]);
    expect(JSON.parse(mine[0].body)).toEqual({ event: CONTACT_CREATED.name, timestamp: event.occurredAt, data: { id: 'c1' } });
    expect(await runtime.db.inTenant(other, (tx) => tx.query('SELECT 1 FROM webhook_deliveries'))).toEqual([]);
    const leased = await runtime.db.inTenant(other, (tx) =>
      new DeliveryRunner(runtime.db, app.get(SecretBox), outbound, systemClock, { timeoutMs: 1000 }).leaseOne(tx, hook.id),
    );
    expect(leased).toBeNull();
  });

  it('should purge logs and finished deliveries past the retention', async () => {
    const ctx = await org();
    const hook = await configure(ctx, '/old');
    const now = Date.parse('2032-06-01T00:00:00Z');
    const old = new TestClock(now - 31 * DAY);
    const recent = new TestClock(now - DAY);
    for (const clock of [old, recent]) {
      await enqueue(ctx, hook.id, clock.at);
      const [job] = (await runner(clock).claim(50, 4)).filter((j) => j.webhook_id === hook.id);
      await runner(clock).attempt(job);
    }
    const purged = await new WebhookActions(runtime.db, runner(new TestClock(now)), new TestClock(now)).purge(30);
    expect(purged.logs).toBeGreaterThanOrEqual(1);
    const left = await logsOf(ctx, hook.id);
    expect(left).toHaveLength(1);
    expect(app.get(WebhookActions)).toBeInstanceOf(WebhookActions);
  });
});
