import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { EventContract } from '@engage/shared-kernel';

// Every event the composed contexts publish, from their manifests. Consumers that follow a public
// contract rather than named events (webhook deliveries, timelines) read it from here.
export class EventCatalogue {
  private readonly byName = new Map<string, EventContract>();

  constructor(contracts: readonly EventContract[]) {
    for (const contract of contracts) {
      if (this.byName.has(contract.name)) throw new Error(`event "${contract.name}" is declared twice`);
      this.byName.set(contract.name, contract);
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
  static forRoot(contracts: readonly EventContract[]): DynamicModule {
    return { module: EventCatalogueModule, providers: [{ provide: EventCatalogue, useValue: new EventCatalogue(contracts) }], exports: [EventCatalogue] };
  }
}
