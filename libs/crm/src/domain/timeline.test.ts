import { createEvent } from '@engage/shared-kernel';
import { timelineEntryOf } from './timeline';

const ORG = '11111111-1111-4111-8111-111111111111';
const CONTACT = '22222222-2222-4222-8222-222222222222';
const DEAL = '33333333-3333-4333-8333-333333333333';
const USER = '44444444-4444-4444-8444-444444444444';
const event = (source: string, type: string, payload: Record<string, unknown>) => createEvent({ type, source, organizationId: ORG, aggregateId: CONTACT, payload });

describe('timeline entries from events', () => {
  it('should link a company’s note, task and deal to the company timeline, and keep contact-only entries off it', () => {
    const COMPANY = '55555555-5555-4555-8555-555555555555';
    expect(timelineEntryOf(event('crm', 'note.created', { note: { id: 'n1', body: 'Hi', company_id: COMPANY }, actor_id: USER }))).toMatchObject({ company_id: COMPANY, contact_id: null, deal_id: null });
    expect(timelineEntryOf(event('crm', 'task.created', { task: { id: 't1', title: 'Call', company_id: COMPANY } }))?.company_id).toBe(COMPANY);
    expect(timelineEntryOf(event('crm', 'deal.created', { deal: { id: DEAL, title: 'Fleet', company_id: COMPANY } }))).toMatchObject({ company_id: COMPANY, deal_id: DEAL });
    expect(timelineEntryOf(event('crm', 'contact.created', { contact: { id: CONTACT, first_name: 'A', company_id: COMPANY } }))?.company_id).toBeNull();
  });

  it('should put a stage change of a contact’s deal on both timelines', () => {
    const entry = timelineEntryOf(event('crm', 'deal.stage.changed', { deal: { id: DEAL, title: 'Fleet', contact_id: CONTACT, stage: 'QUALIFIED' }, from_stage: 'LEAD', to_stage: 'QUALIFIED', actor_id: USER }));
    expect(entry).toMatchObject({ contact_id: CONTACT, deal_id: DEAL, actor_id: USER, summary: 'Stage changed from LEAD to QUALIFIED: Fleet', data: { id: DEAL, from_stage: 'LEAD', to_stage: 'QUALIFIED' } });
  });

  it('should read a message of the messaging context and shorten long content in the summary', () => {
    const content = 'Hello '.repeat(100);
    const entry = timelineEntryOf(event('messaging', 'message.received', { message: { id: 'm1', conversation_id: 'c1', contact_id: CONTACT, direction: 'inbound', status: 'received', content }, actor_id: null }));
    expect(entry?.contact_id).toBe(CONTACT);
    expect(entry?.summary.length).toBeLessThanOrEqual(160);
    expect(entry?.data).toMatchObject({ id: 'm1', direction: 'inbound', content: content.slice(0, 1000) });
  });

  it('should accept calls and nudges under their record key or at the top level', () => {
    expect(timelineEntryOf(event('calls', 'call.analyzed', { call: { id: 'x', contact_id: CONTACT, summary: 'Wants a quote' } }))?.summary).toBe('Call analyzed: Wants a quote');
    expect(timelineEntryOf(event('reengagement', 'nudge.sent', { contact_id: CONTACT, content: 'Still interested?' }))?.summary).toBe('Re-engagement nudge sent: Still interested?');
  });

  it('should skip unknown types, unknown shapes and events without a contact, deal or company', () => {
    expect(timelineEntryOf(event('messaging', 'message.sent', { message: 'oops' }))).toBeUndefined();
    expect(timelineEntryOf(event('messaging', 'message.sent', { message: { contact_id: 'not-a-uuid' } }))).toBeUndefined();
    expect(timelineEntryOf(event('messaging', 'message.delivered', { message: { contact_id: CONTACT } }))).toBeUndefined();
    expect(timelineEntryOf(event('calls', 'call.analyzed', { call: null }))).toBeUndefined();
    expect(timelineEntryOf(event('crm', 'deal.updated', { deal: { id: DEAL } }))).toBeUndefined();
    expect(timelineEntryOf(event('billing', 'subscription.updated', { contact_id: CONTACT }))).toBeUndefined();
    expect(timelineEntryOf({ ...event('crm', 'note.created', {}), payload: null as unknown as Record<string, unknown> })).toBeUndefined();
    expect(timelineEntryOf(event('crm', 'note.created', { note: { id: 'n', body: 'no link', company_id: 'not-a-uuid' } }))).toBeUndefined();
  });
});
