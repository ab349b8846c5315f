import { deliveryBody, deliveryData, WEBHOOK_EVENT_KINDS } from './event-kinds';

describe('delivery data per kind', () => {
  it('should list the 17 kinds of §6', () => {
    expect(WEBHOOK_EVENT_KINDS).toHaveLength(17);
  });

  it('should send the record of the event, without actor_id, with extra facts under changes', () => {
    const contact = { id: 'c1', first_name: 'Mona' };
    expect(deliveryData('contact.created', { contact, actor_id: 'u1' })).toEqual(contact);
    const deal = { id: 'd1', stage: 'WON' };
    expect(deliveryData('deal.stage.changed', { deal, actor_id: null, from_stage: 'LEAD', to_stage: 'WON' })).toEqual({ ...deal, changes: { from_stage: 'LEAD', to_stage: 'WON' } });
    expect(deliveryData('message.received', { message: { id: 'm1' }, actor_id: null })).toEqual({ id: 'm1' });
    expect(deliveryData('broadcast.response', { response: { id: 'r1' } })).toEqual({ id: 'r1' });
    expect(deliveryData('broadcast.response', { message: { id: 'm1' }, actor_id: null, broadcast_id: 'b1' })).toEqual({ id: 'm1', changes: { broadcast_id: 'b1' } });
    expect(deliveryData('zoom.recording.completed', { recording: { id: 'z1' } })).toEqual({ id: 'z1' });
    expect(deliveryData('conversation.status.changed', { conversation_id: 'x', status: 'closed', actor_id: 'u' })).toEqual({ conversation_id: 'x', status: 'closed' });
  });

  it('should serialise the body once as {event, timestamp, data}', () => {
    expect(JSON.parse(deliveryBody('deal.created', '2026-11-23T10:00:00.000Z', { id: 'd1' }))).toEqual({ event: 'deal.created', timestamp: '2026-11-23T10:00:00.000Z', data: { id: 'd1' } });
  });
});
