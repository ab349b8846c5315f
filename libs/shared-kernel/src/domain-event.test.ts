import { createEvent, topicOf } from './domain-event';
import { AggregateRoot } from './aggregate-root';

class Counter extends AggregateRoot {
  bump(orgId: string) {
    this.record(createEvent({ type: 'counter.bumped', source: 'test', organizationId: orgId, aggregateId: 'c1', payload: { by: 1 } }));
  }
}

describe('domain events', () => {
  it('should give each event a fresh id, an ISO time and schema version 1 by default', () => {
    const a = createEvent({ type: 'x.y', source: 'crm', organizationId: 'o', aggregateId: 'a', payload: {} });
    const b = createEvent({ type: 'x.y', source: 'crm', organizationId: 'o', aggregateId: 'a', payload: {} });
    expect(a.id).not.toEqual(b.id);
    expect(new Date(a.occurredAt).toISOString()).toEqual(a.occurredAt);
    expect(a.schemaVersion).toBe(1);
    expect(topicOf(a.source)).toBe('events.crm');
  });

  it('should hand recorded events out once when an aggregate is pulled', () => {
    const counter = new Counter();
    counter.bump('org-1');
    counter.bump('org-1');
    expect(counter.pullEvents().map((e) => e.type)).toEqual(['counter.bumped', 'counter.bumped']);
    expect(counter.pullEvents()).toEqual([]);
  });
});
