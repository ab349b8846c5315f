import { createEvent, topicOf } from './domain-event';

describe('domain events', () => {
  it('should give each event a fresh id, an ISO time and schema version 1 by default', () => {
    const a = createEvent({ type: 'x.y', source: 'crm', organizationId: 'o', aggregateId: 'a', payload: {} });
    const b = createEvent({ type: 'x.y', source: 'crm', organizationId: 'o', aggregateId: 'a', payload: {} });
    expect(a.id).not.toEqual(b.id);
    expect(new Date(a.occurredAt).toISOString()).toEqual(a.occurredAt);
    expect(a.schemaVersion).toBe(1);
    expect(topicOf(a.source)).toBe('events.crm');
  });
});
