import { defineEvent, type EventContract, webhookData } from '@engage/shared-kernel';
import { timelineEntryOf } from '../domain/timeline';
import { CONTACT_CREATED, CRM_EVENTS, DEAL_ASSIGNED, DEAL_CREATED, DEAL_STAGE_CHANGED, DEAL_UPDATED, NOTE_CREATED, TASK_CREATED } from './crm-events';

const ORG = '11111111-1111-4111-8111-111111111111';
const CONTACT = '22222222-2222-4222-8222-222222222222';
const DEAL = '33333333-3333-4333-8333-333333333333';
const USER = '44444444-4444-4444-8444-444444444444';
const COMPANY = '55555555-5555-4555-8555-555555555555';

// Events as the timeline consumer receives them: JSON off the bus, checked against nothing but the declaration.
const arrived = (contract: EventContract, payload: Record<string, unknown>) =>
  contract.create({ organizationId: ORG, aggregateId: CONTACT, payload: payload as never });
const entryOf = (contract: EventContract, payload: Record<string, unknown>) => timelineEntryOf(arrived(contract, payload), contract);

// A producer of another context, declared in the test: the CRM knows it only through its declaration.
const PINGED = defineEvent<{ ping: { id: string; contact_id: string; text: string }; actor_id: null }>({
  name: 'widget.pinged',
  source: 'widgets',
  version: 1,
  description: 'a widget pinged a contact',
  timeline: ({ ping }) => ({ contact_id: ping.contact_id, deal_id: null, summary: `Pinged: ${ping.text}`, data: { id: ping.id }, touches: 'contact' }),
});

describe('the CRM events and their timeline entries', () => {
  it('should link a company’s note, task and deal to the company timeline, and keep contact-only entries off it', () => {
    const note = entryOf(NOTE_CREATED, { note: { id: 'n1', body: 'Hi', company_id: COMPANY }, actor_id: USER });
    expect(note).toMatchObject({ company_id: COMPANY, contact_id: null, deal_id: null });
    expect(entryOf(TASK_CREATED, { task: { id: 't1', title: 'Call', company_id: COMPANY } })?.company_id).toBe(COMPANY);
    expect(entryOf(DEAL_CREATED, { deal: { id: DEAL, title: 'Fleet', company_id: COMPANY } })).toMatchObject({ company_id: COMPANY, deal_id: DEAL });
    expect(entryOf(CONTACT_CREATED, { contact: { id: CONTACT, first_name: 'A', company_id: COMPANY } })?.company_id).toBeNull();
  });

  it('should put a stage change of a contact’s deal on both timelines', () => {
    const deal = { id: DEAL, title: 'Fleet', contact_id: CONTACT, stage: 'QUALIFIED' };
    const entry = entryOf(DEAL_STAGE_CHANGED, { deal, from_stage: 'LEAD', to_stage: 'QUALIFIED', actor_id: USER });
    expect(entry).toMatchObject({ contact_id: CONTACT, deal_id: DEAL, actor_id: USER, summary: 'Stage changed from LEAD to QUALIFIED: Fleet' });
    expect(entry?.data).toMatchObject({ id: DEAL, from_stage: 'LEAD', to_stage: 'QUALIFIED' });
    const unassigned = entryOf(DEAL_ASSIGNED, { deal: { id: DEAL, title: 'Fleet' }, reason: 'Unassigned', previous_owner_id: USER });
    expect(unassigned?.summary).toBe('Deal unassigned (Unassigned): Fleet');
  });

  it('should take another context’s event through its declared projection, and count it as the contact’s activity', () => {
    const entry = entryOf(PINGED, { ping: { id: 'p1', contact_id: CONTACT, text: 'hello' }, actor_id: null });
    expect(entry).toMatchObject({ type: 'widget.pinged', source: 'widgets', contact_id: CONTACT, summary: 'Pinged: hello', touches: 'contact' });
  });

  it('should skip events without a projection, unknown shapes and events without a contact, deal or company', () => {
    expect(entryOf(DEAL_UPDATED, { deal: { id: DEAL } })).toBeUndefined();
    expect(entryOf(NOTE_CREATED, { note: 'oops' })).toBeUndefined();
    expect(entryOf(PINGED, { ping: null })).toBeUndefined();
    expect(entryOf(NOTE_CREATED, { note: { id: 'n', body: 'no link', company_id: 'not-a-uuid' } })).toBeUndefined();
    expect(timelineEntryOf(arrived(NOTE_CREATED, { note: { id: 'n', contact_id: CONTACT } }), undefined)).toBeUndefined();
    expect(timelineEntryOf({ ...arrived(NOTE_CREATED, {}), payload: null as unknown as Record<string, unknown> }, NOTE_CREATED)).toBeUndefined();
  });

  it('should send as webhook data every field the API returns today, and only the declared changes', () => {
    const deal = {
      id: DEAL,
      organization_id: ORG,
      title: 'Fleet',
      description: '',
      pipeline_id: 'p',
      stage_id: 's',
      stage: 'WON',
      contact_id: null,
      company_id: null,
      owner_id: null,
      value: 10,
      currency: 'EGP',
      probability: 100,
      priority: 'medium',
      source: 'api',
      expected_close_date: null,
      notes: '',
      tags: [],
      custom_fields: {},
      position: 1,
      last_activity_at: 't',
      created_at: 't',
      updated_at: 't',
    };
    const changes = { from_stage: 'LEAD', to_stage: 'WON' };
    expect(webhookData(DEAL_STAGE_CHANGED, { deal, actor_id: USER, ...changes })).toEqual({ ...deal, changes });
    // An internal field the contract does not list stays inside.
    expect(webhookData(DEAL_CREATED, { deal: { ...deal, internal_score: 3 }, actor_id: USER })).toEqual(deal);
    expect(CRM_EVENTS.filter((contract) => contract.webhook).map((contract) => contract.name)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.assigned',
      'deal.created',
      'deal.updated',
      'deal.stage.changed',
      'deal.assigned',
    ]);
  });
});
