import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { CONSUMER_SESSION_TIMEOUT_MS, KafkaEventBus } from './kafka-event-bus';

// Consumers after a broker crash: the broker is killed (SIGKILL) and started again on its data,
// and deliveries must resume within 10 s of it answering. It stops and starts a broker of its own
// (scripts/kafka-local.sh with its own ports and KAFKA_STATE_DIR), never the shared one other
// Kafka tests use; it runs when those do (KAFKA_BROKERS set: Java and Maven are there).
const enabled = (process.env.KAFKA_BROKERS ?? '').length > 0;
const describeKafka = enabled ? describe : describe.skip;
if (!enabled) process.stdout.write('kafka-recovery.db.test: SKIPPED: KAFKA_BROKERS is not set (npm test starts a broker)\n');

const script = resolve(__dirname, '..', '..', '..', '..', 'scripts', 'kafka-local.sh');
const run = promisify(execFile);
// How long the broker stays down: long enough for the consumers' retries to back off
// (KAFKA_RECOVERY_DOWN_MS for longer outages).
const DOWN_MS = Number(process.env.KAFKA_RECOVERY_DOWN_MS ?? 10_000);
// How it goes down: `kill` (SIGKILL) or `stop` (a clean shutdown keeping the data, as
// `npm run faults` does; the restarted coordinator then reloads the groups with their members).
const HOW = process.env.KAFKA_RECOVERY_STOP === 'stop' ? 'stop' : 'kill';
const RECOVERY_BOUND_MS = 10_000;

// When the restarted broker's group coordinator last loaded the test's groups (its log's local time):
// the dead members' sessions run from then, possibly before the broker answers.
function lastGroupLoad(stateDir: string, groupPrefix: string): { at: number; members: number } | undefined {
  const lines = readFileSync(join(stateDir, 'logs', 'kafka.out'), 'utf8').split('\n');
  const load = lines.filter((line) => line.includes(`Loaded classic group ${groupPrefix}`)).pop();
  const at = load && /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3})\].* with (\d+) members/.exec(load);
  return at ? { at: new Date(`${at[1]}T${at[2]}.${at[3]}`).getTime(), members: Number(at[4]) } : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return done();
}

const report = (line: string) => process.stdout.write(`kafka-recovery: ${line}\n`);

describeKafka('Kafka consumers after the broker is killed and restarted', () => {
  jest.setTimeout(240_000);
  const stamp = `${Date.now()}`;
  const source = `recovery${stamp}`;
  const groupPrefix = `recovery${stamp}`;
  const organizationId = '00000000-0000-4000-8000-000000000001';
  let env: NodeJS.ProcessEnv;
  let stateDir: string;
  let relay: KafkaEventBus;
  const buses: KafkaEventBus[] = [];
  // When each consumer first got each event, and how many times.
  const delivered = new Map<string, Map<string, number>>([
    ['each-message', new Map()],
    ['each-batch', new Map()],
  ]);
  const deliveries = new Map<string, number>();
  const kafka = async (command: string, extra: NodeJS.ProcessEnv = {}) =>
    (await run(script, [command], { env: { ...env, ...extra }, timeout: 180_000 })).stdout;
  const event = (type = 'recovery.probe') => createEvent({ source, type, organizationId, aggregateId: 'probe', payload: {} });
  const everywhere = (id: string) => [...delivered.values()].every((times) => times.has(id));
  const brokerLog = () => readFileSync(join(stateDir, 'logs', 'kafka.out'), 'utf8');

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'kafka-recovery-'));
    env = { ...process.env, KAFKA_STATE_DIR: stateDir, KAFKA_PORT: String(await freePort()), KAFKA_CONTROLLER_PORT: String(await freePort()) };
    const line = (await kafka('start')).trim().split('\n').pop() ?? '';
    const brokers = [line.replace(/^KAFKA_BROKERS=/, '')];
    const worker = new KafkaEventBus({ brokers, clientId: 'recovery-worker', groupPrefix, maxWaitTimeInMs: 100 });
    buses.push(worker);
    const record = (consumer: string) => async (event: DomainEvent) => {
      const key = `${consumer}:${event.id}`;
      deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      // Slower than the session: the member must keep its place meanwhile.
      if (event.type === 'recovery.slow') await new Promise((r) => setTimeout(r, CONSUMER_SESSION_TIMEOUT_MS + 2000));
      if (!delivered.get(consumer)!.has(event.id)) delivered.get(consumer)!.set(event.id, Date.now());
    };
    await worker.subscribe({ consumer: 'each-message', sources: [source], handle: record('each-message') });
    await worker.subscribe({
      consumer: 'each-batch',
      sources: [source],
      handle: async () => undefined,
      handleBatch: async (events) => {
        for (const event of events) await record('each-batch')(event);
      },
    });
    await worker.start();
    relay = new KafkaEventBus({ brokers, clientId: 'recovery-relay' });
    buses.push(relay);
    await relay.start();
  });
  afterAll(async () => {
    for (const bus of buses) await bus.stop();
    if (env) await kafka('stop').catch(() => undefined);
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('should keep a consumer in its group while a handler runs longer than the session', async () => {
    const slow = event('recovery.slow');
    const next = event();
    await relay.publish([slow]);
    await relay.publish([next]);
    expect(await waitFor(() => everywhere(next.id), 60_000)).toBe(true);
    for (const consumer of delivered.keys()) expect([deliveries.get(`${consumer}:${slow.id}`), deliveries.get(`${consumer}:${next.id}`)]).toEqual([1, 1]);
    expect(brokerLog()).not.toMatch(new RegExp(`in group ${groupPrefix}\\.\\S+ has failed`));
  });

  it('should deliver again within 10 s of the broker answering', async () => {
    const before = event();
    await relay.publish([before]);
    expect(await waitFor(() => everywhere(before.id), 30_000)).toBe(true);

    await kafka(HOW, { KAFKA_KEEP_DATA: '1' });
    await new Promise((r) => setTimeout(r, DOWN_MS));
    await kafka('start');
    const answered = Date.now();
    // As the outbox relay does: publish as soon as the broker takes it.
    const after = event();
    for (;;) {
      try {
        await relay.publish([after]);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const published = Date.now() - answered;
    await waitFor(() => everywhere(after.id), 60_000);
    const resumed = [...delivered].map(([consumer, times]) => `${consumer} ${times.has(after.id) ? `${times.get(after.id)! - answered} ms` : 'never'}`);
    const loaded = lastGroupLoad(stateDir, groupPrefix);
    const load = loaded === undefined ? 'not found' : `${loaded.at - answered} ms, with ${loaded.members} members`;
    report(`${HOW}, down ${DOWN_MS} ms; after the broker answered: published in ${published} ms, delivered to ${resumed.join(', ')} (groups loaded: ${load})`);
    for (const times of delivered.values()) expect(times.get(after.id)! - answered).toBeLessThan(RECOVERY_BOUND_MS);
  });
});
