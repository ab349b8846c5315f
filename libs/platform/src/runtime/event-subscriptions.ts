import { Injectable, Optional } from '@nestjs/common';
import type { Subscription } from '@engage/shared-kernel';
import { EventCatalogue } from '../context/event-catalogue';

// Consuming contexts add their subscriptions here while modules initialise (one file per
// consuming context lists them); the worker hands them to the bus before it starts.
@Injectable()
export class EventSubscriptions {
  private readonly list: Subscription[] = [];

  constructor(@Optional() private readonly catalogue?: EventCatalogue) {}

  // A consumer its context's manifest does not declare stops the app while modules initialise.
  add(subscription: Subscription): void {
    this.catalogue?.assertDeclared(subscription);
    if (this.list.some((existing) => existing.consumer === subscription.consumer)) {
      throw new Error(`event consumer "${subscription.consumer}" is registered twice`);
    }
    this.list.push(subscription);
  }

  all(): readonly Subscription[] {
    return this.list;
  }
}
