import { deliveryBody } from './event-kinds';

describe('delivery body', () => {
  it('should serialise the body once as {event, timestamp, data}', () => {
    const body = deliveryBody('thing.created', '2026-11-23T10:00:00.000Z', { id: 'd1' });
    expect(body).toBe('{"event":"thing.created","timestamp":"2026-11-23T10:00:00.000Z","data":{"id":"d1"}}');
  });
});
