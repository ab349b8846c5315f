import { defineEvent, webhookData } from './event-contract';

type Payload = { thing: { id: string; name: string; secret?: string }; actor_id: string | null; from?: string; to?: string; note?: string };
const MOVED = defineEvent<Payload>({
  name: 'thing.moved',
  source: 'things',
  version: 2,
  description: 'a thing moved',
  webhook: { record: 'thing', fields: ['id', 'name'], changes: ['from', 'to'] },
});

describe('declared events', () => {
  it('should stamp created events with the declared name, source and version', () => {
    const event = MOVED.create({ organizationId: 'o', aggregateId: 't1', payload: { thing: { id: 't1', name: 'A' }, actor_id: null } });
    expect(event).toMatchObject({ type: 'thing.moved', source: 'things', schemaVersion: 2, organizationId: 'o', aggregateId: 't1' });
    expect(MOVED.produced).toBe(true);
  });

  it('should send the declared fields of the record, in the payload’s order, and the declared changes only when present', () => {
    const thing = { name: 'A', secret: 's', id: 't1' };
    const data = webhookData(MOVED, { thing, actor_id: 'u', to: 'y', note: 'internal', from: 'x' });
    expect(JSON.stringify(data)).toBe('{"name":"A","id":"t1","changes":{"to":"y","from":"x"}}');
    expect(webhookData(MOVED, { thing, actor_id: 'u' })).toEqual({ name: 'A', id: 't1' });
    expect(webhookData(MOVED, { thing: 'not a record', actor_id: 'u' })).toBeUndefined();
    expect(webhookData(defineEvent<Payload>({ name: 'thing.seen', source: 'things', version: 1, description: 'seen' }), { thing })).toBeUndefined();
  });
});
