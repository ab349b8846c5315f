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

// Topic per context (`events.<source>`), message key = organization id so one organization's
// events stay in order within a partition.
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumers: Consumer[] = [];
  private readonly pending: Subscription[] = [];
  private connected = false;

  constructor(private readonly options: KafkaBusOptions) {
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
      retry: { retries: 10 },
      maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 500,
    });
    await consumer.connect();
    await consumer.subscribe({ topics: subscription.sources.map(topicOf), fromBeginning: true });
    // A thrown handler makes kafkajs retry the message (or the batch); offsets commit only after
    // success. A subscription with handleBatch gets each partition's fetched batch at once.
    const handleBatch = subscription.handleBatch;
    if (handleBatch) {
      await consumer.run({
        eachBatch: async ({ batch }) => {
          const events = batch.messages.flatMap((message) => (message.value ? [JSON.parse(message.value.toString()) as DomainEvent] : []));
          if (events.length === 0) return;
          try {
            await handleBatch(events);
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
        eachMessage: async ({ message }) => {
          if (!message.value) return;
          const event = JSON.parse(message.value.toString()) as DomainEvent;
          try {
            await subscription.handle(event);
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
