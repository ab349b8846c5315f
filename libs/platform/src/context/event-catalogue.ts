import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { EventContract, Subscription } from '@engage/shared-kernel';
import type { Consumption } from './context-manifest';

// A composed context's declared consumption (its manifest's `consumes`), keyed by the context name
// its consumers carry as their prefix (`crm.timeline`).
export interface ConsumerDeclaration {
  readonly context: string;
  readonly consumes: Consumption;
}

// Every event the composed contexts publish, from their manifests. Consumers that follow a public
// contract rather than named events (webhook deliveries, timelines) read it from here.
export class EventCatalogue {
  private readonly byName = new Map<string, EventContract>();
  private readonly consumers?: ReadonlyMap<string, Consumption>;

  // With `consumers` (the apps' composition), every declared consumption must name an event some
  // composed context publishes, and every subscription must stay within its context's declaration.
  constructor(contracts: readonly EventContract[], consumers?: readonly ConsumerDeclaration[]) {
    for (const contract of contracts) {
      if (this.byName.has(contract.name)) throw new Error(`event "${contract.name}" is declared twice`);
      this.byName.set(contract.name, contract);
    }
    if (!consumers) return;
    for (const { context, consumes } of consumers) {
      for (const event of consumes.events ?? []) {
        if (this.of({ type: event.name, source: event.source }) === undefined) {
          throw new Error(`context "${context}" consumes "${event.name}" (${event.source}), which no composed context publishes`);
        }
      }
    }
    this.consumers = new Map(consumers.map((declaration) => [declaration.context, declaration.consumes]));
  }

  // Refuses a subscription its context's manifest does not declare: consumers are named
  // `<context>.<name>`, and may read only the topics of the events their context declares it
  // consumes, or of the events carrying a contract it declares (webhook, timeline).
  assertDeclared(subscription: Pick<Subscription, 'consumer' | 'sources'>): void {
    if (!this.consumers) return;
    const context = subscription.consumer.split('.')[0];
    const consumes = this.consumers.get(context);
    if (!consumes) throw new Error(`event consumer "${subscription.consumer}" is not named after a composed context ("<context>.<name>")`);
    const declared = [...(consumes.events ?? []), ...this.all().filter((contract) => (consumes.contracts ?? []).some((kind) => contract[kind] !== undefined))];
    const allowed = new Set(declared.map((contract) => contract.source));
    const undeclared = subscription.sources.filter((source) => !allowed.has(source));
    if (undeclared.length > 0) {
      throw new Error(
        `event consumer "${subscription.consumer}" reads ${undeclared.join(', ')}, ` + `which context "${context}" does not declare in its manifest's consumes`,
      );
    }
  }

  all(): EventContract[] {
    return [...this.byName.values()];
  }

  // The declaration of an event as it arrived: the same name from the same producer.
  of(event: { type: string; source: string }): EventContract | undefined {
    const contract = this.byName.get(event.type);
    return contract && contract.source === event.source ? contract : undefined;
  }

  // The webhook kinds (§6), in declaration order, produced or not.
  webhookKinds(): EventContract[] {
    return this.all().filter((contract) => contract.webhook !== undefined);
  }

  // The topics carrying events with a given contract, for a consumer's subscription.
  sourcesOf(contracts: EventContract[]): string[] {
    return [...new Set(contracts.filter((contract) => contract.produced).map((contract) => contract.source))];
  }
}

@Global()
@Module({})
export class EventCatalogueModule {
  static forRoot(contracts: readonly EventContract[], consumers?: readonly ConsumerDeclaration[]): DynamicModule {
    const catalogue = new EventCatalogue(contracts, consumers);
    return { module: EventCatalogueModule, providers: [{ provide: EventCatalogue, useValue: catalogue }], exports: [EventCatalogue] };
  }
}
