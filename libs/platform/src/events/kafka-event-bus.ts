import { type DomainEvent, type EventBus, type Subscription, topicOf } from '@engage/shared-kernel';
import { type Consumer, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  // Consumer groups are `<groupPrefix>.<consumer>`: one group per consuming context.
  groupPrefix?: string;
  // How long a fetch waits for new messages; it also bounds how long disconnect takes.
  maxWaitTimeInMs?: number;
  log?: (message: string, error?: unknown) => void;
}

// Consumer group timing (docs/events.md, "Broker restarts"). After a broker restart its group
// coordinator reloads each group with the members it had; a consumer that comes back as a new member
// waits until those members' sessions expire: 30 s at kafkajs's default session timeout, while the
// relay had published again 0.26 s after the broker answered. 6 s is the least a broker accepts by
// default (group.min.session.timeout.ms); measured with kafka-recovery.db.test.ts: deliveries resumed 30.05 s
// after the broker answered with the defaults, 0.3-6.0 s with these. Heartbeats go every second, also
// while a handler runs (withHeartbeats): a batch slower than the session costs no rebalance.
export const CONSUMER_SESSION_TIMEOUT_MS = 6000;
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 1000;
// Reconnect and rejoin attempts (and the restart after a crash) at most 2 s apart; kafkajs's default
// backs off up to 30 s, which a consumer could still be sleeping through when the broker is back.
const CONSUMER_RETRY = { retries: 10, initialRetryTime: 300, maxRetryTime: 2000 };

// Topic per context (`events.<source>`), message key = organization id so one organization's
// events stay in order within a partition.
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumers: Consumer[] = [];
  private readonly pending: Subscription[] = [];
  private connected = false;

  constructor(private readonly options: KafkaBusOptions) {
    silenceKafkajsNegativeTimeout();
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 200 },
      connectionTimeout: 3000,
      requestTimeout: 10000,
    });
    this.producer = this.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: true });
  }

  async subscribe(subscription: Subscription): Promise<void> {
    this.pending.push(subscription);
    if (this.connected) await this.runConsumer(subscription);
  }

  async start(): Promise<void> {
    await this.producer.connect();
    this.connected = true;
    await this.ensureTopics(this.pending.flatMap((s) => s.sources));
    for (const subscription of this.pending) await this.runConsumer(subscription);
  }

  async stop(): Promise<void> {
    this.connected = false;
    await Promise.all(this.consumers.map((consumer) => consumer.disconnect().catch(() => undefined)));
    this.consumers.length = 0;
    await this.producer.disconnect().catch(() => undefined);
  }

  isConnected(): boolean {
    return this.connected;
  }

  async publish(events: DomainEvent[]): Promise<void> {
    if (!this.connected) throw new Error('Kafka producer is not connected');
    const byTopic = new Map<string, DomainEvent[]>();
    for (const event of events) {
      const topic = topicOf(event.source);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), event]);
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic,
        messages: list.map((event) => ({
          key: event.organizationId,
          value: JSON.stringify(event),
          headers: { 'event-id': event.id, 'event-type': event.type },
        })),
      })),
    });
  }

  private async ensureTopics(sources: string[]): Promise<void> {
    const topics = [...new Set(sources.map(topicOf))];
    if (topics.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((topic) => !existing.has(topic));
      if (missing.length > 0) {
        await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic, numPartitions: 3 })) });
      }
    } finally {
      await admin.disconnect();
    }
  }

  private async runConsumer(subscription: Subscription): Promise<void> {
    await this.ensureTopics(subscription.sources);
    const consumer = this.kafka.consumer({
      groupId: `${this.options.groupPrefix ?? 'engage'}.${subscription.consumer}`,
      retry: CONSUMER_RETRY,
      sessionTimeout: CONSUMER_SESSION_TIMEOUT_MS,
      heartbeatInterval: CONSUMER_HEARTBEAT_INTERVAL_MS,
      maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 500,
    });
    await consumer.connect();
    await consumer.subscribe({ topics: subscription.sources.map(topicOf), fromBeginning: true });
    // A thrown handler makes kafkajs retry the message (or the batch); offsets commit only after
    // success. A subscription with handleBatch gets each partition's fetched batch at once.
    const handleBatch = subscription.handleBatch;
    if (handleBatch) {
      await consumer.run({
        eachBatch: async ({ batch, heartbeat }) => {
          const events = batch.messages.flatMap((message) => (message.value ? [JSON.parse(message.value.toString()) as DomainEvent] : []));
          if (events.length === 0) return;
          try {
            await withHeartbeats(heartbeat, () => handleBatch(events));
          } catch (error) {
            this.options.log?.(
              `consumer ${subscription.consumer} failed on a batch of ${events.length} events from ${events[0].id}; it will be retried`,
              error,
            );
            throw error;
          }
        },
      });
    } else {
      await consumer.run({
        eachMessage: async ({ message, heartbeat }) => {
          if (!message.value) return;
          const event = JSON.parse(message.value.toString()) as DomainEvent;
          try {
            await withHeartbeats(heartbeat, () => subscription.handle(event));
          } catch (error) {
            this.options.log?.(`consumer ${subscription.consumer} failed on event ${event.id}; it will be retried`, error);
            throw error;
          }
        },
      });
    }
    this.consumers.push(consumer);
  }
}

// kafkajs heartbeats between messages and batches only; while a handler runs longer than the session
// the member would be expelled. This keeps heartbeating meanwhile (kafkajs sends at most one per
// interval, shared between callers). A failed heartbeat is left to kafkajs's own after the handler:
// a rebalance is joined then.
async function withHeartbeats<T>(heartbeat: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => heartbeat().catch(() => undefined), CONSUMER_HEARTBEAT_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

// kafkajs 2.2.4 arms a timer with a negative delay after every answer a connection gets (its request
// queue's throttle check: `throttledUntil - Date.now()` with throttledUntil -1), and on Node 24 the
// first one prints a TimeoutNegativeWarning at every worker start (tulios/kafkajs#1751, unfixed
// upstream). No kafkajs setting avoids it: every answer runs that check. This drops exactly that
// warning, the one raised from kafkajs's request queue; every other warning, a negative timeout of
// our own included, is printed as before. (Node prints TimeoutNegativeWarning once per process, so
// once kafkajs has raised it a later one of ours is not printed either, with or without this.)
let negativeTimeoutSilenced = false;
function silenceKafkajsNegativeTimeout(): void {
  if (negativeTimeoutSilenced) return;
  negativeTimeoutSilenced = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const options = rest[0];
    const type = typeof options === 'string' ? options : (options as { type?: string } | undefined)?.type;
    if (type === 'TimeoutNegativeWarning' && /kafkajs[\\/]src[\\/]network[\\/]requestQueue/.test(new Error().stack ?? '')) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}
