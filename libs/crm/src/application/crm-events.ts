import {
  defineEvent,
  type EventContract,
  isPayloadObject,
  pickScalars,
  type RequestContext,
  snippet,
  textOrNull,
  type TimelineProjection,
  uuidOrNull,
} from '@engage/shared-kernel';
import type { NoteView, TaskView } from './activity-records.service';
import type { ContactView } from './contact-view';
import type { DealView } from './deal.service';

// The events the CRM publishes (topic `crm`), each declared once: payload type, the public `data`
// of the §6 webhook kinds (docs/webhooks.md), and what each adds to the timelines.

export type ContactPayload = { contact: ContactView; actor_id: string | null };
export type DealPayload = {
  deal: DealView;
  actor_id: string | null;
  from_stage?: string;
  to_stage?: string;
  previous_owner_id?: string | null;
  reason?: string;
};
export type TaskPayload = { task: TaskView; actor_id: string | null };
export type NotePayload = { note: NoteView; actor_id: string | null };

// What integrators receive as `data` (§6): these fields, whatever the views grow.
const CONTACT_FIELDS = [
  'id',
  'organization_id',
  'first_name',
  'last_name',
  'phones',
  'emails',
  'tags',
  'description',
  'company_id',
  'assignee_id',
  'source',
  'opt_in_status',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;
const DEAL_FIELDS = [
  'id',
  'organization_id',
  'title',
  'description',
  'pipeline_id',
  'stage_id',
  'stage',
  'contact_id',
  'company_id',
  'owner_id',
  'value',
  'currency',
  'probability',
  'priority',
  'source',
  'expected_close_date',
  'notes',
  'tags',
  'custom_fields',
  'position',
  'last_activity_at',
  'created_at',
  'updated_at',
] as const;

const source = 'crm';

function contactTimeline(summary: string) {
  return ({ contact }: ContactPayload): TimelineProjection | undefined =>
    isPayloadObject(contact)
      ? { contact_id: uuidOrNull(contact.id), deal_id: null, summary, data: pickScalars(contact, ['id', 'first_name', 'last_name', 'assignee_id']) }
      : undefined;
}

function dealTimeline(summaryOf: (payload: DealPayload, title: string) => string) {
  return (payload: DealPayload): TimelineProjection | undefined => {
    const { deal } = payload;
    if (!isPayloadObject(deal)) return undefined;
    const data = {
      ...pickScalars(deal, ['id', 'title', 'stage', 'value', 'currency', 'owner_id']),
      ...pickScalars(payload, ['from_stage', 'to_stage', 'previous_owner_id', 'reason']),
    };
    const summary = summaryOf(payload, snippet(deal.title));
    return { contact_id: uuidOrNull(deal.contact_id), deal_id: uuidOrNull(deal.id), company_id: uuidOrNull(deal.company_id), summary, data };
  };
}

function taskTimeline(label: string) {
  return ({ task }: TaskPayload): TimelineProjection | undefined =>
    isPayloadObject(task)
      ? {
          contact_id: uuidOrNull(task.contact_id),
          deal_id: uuidOrNull(task.deal_id),
          company_id: uuidOrNull(task.company_id),
          summary: `${label}: ${snippet(task.title)}`,
          data: pickScalars(task, ['id', 'title', 'due_at', 'assignee_id', 'done']),
          touches: 'deal',
        }
      : undefined;
}

export const CONTACT_CREATED = defineEvent<ContactPayload>({
  name: 'contact.created',
  source,
  version: 1,
  description: 'a contact was created (API, data API, CSV import, or an inbound message from a new number)',
  webhook: { record: 'contact', fields: CONTACT_FIELDS },
  timeline: contactTimeline('Contact created'),
});
export const CONTACT_UPDATED = defineEvent<ContactPayload>({
  name: 'contact.updated',
  source,
  version: 1,
  description: 'a contact changed (including a company merge that moved it)',
  webhook: { record: 'contact', fields: CONTACT_FIELDS },
  timeline: contactTimeline('Contact updated'),
});
export const CONTACT_ASSIGNED = defineEvent<ContactPayload>({
  name: 'contact.assigned',
  source,
  version: 1,
  description: 'a contact was created with, or changed to, another assignee',
  webhook: { record: 'contact', fields: CONTACT_FIELDS },
  timeline: contactTimeline('Contact assigned'),
});

export const DEAL_CREATED = defineEvent<DealPayload>({
  name: 'deal.created',
  source,
  version: 1,
  description: 'a deal was created',
  webhook: { record: 'deal', fields: DEAL_FIELDS },
  timeline: dealTimeline((_, title) => `Deal created: ${title}`),
});
export const DEAL_UPDATED = defineEvent<DealPayload>({
  name: 'deal.updated',
  source,
  version: 1,
  description: 'a deal changed',
  webhook: { record: 'deal', fields: DEAL_FIELDS },
});
export const DEAL_STAGE_CHANGED = defineEvent<DealPayload>({
  name: 'deal.stage.changed',
  source,
  version: 1,
  description: 'a deal moved to another stage',
  webhook: { record: 'deal', fields: DEAL_FIELDS, changes: ['from_stage', 'to_stage'] },
  timeline: dealTimeline((p, title) => `Stage changed from ${textOrNull(p.from_stage, 50) ?? '?'} to ${textOrNull(p.to_stage, 50) ?? '?'}: ${title}`),
});
export const DEAL_ASSIGNED = defineEvent<DealPayload>({
  name: 'deal.assigned',
  source,
  version: 1,
  description: 'a deal got another owner (or none): by hand, on creation, or by idle-deal reassignment',
  webhook: { record: 'deal', fields: DEAL_FIELDS, changes: ['previous_owner_id', 'reason'] },
  timeline: dealTimeline((p, title) => {
    const reason = typeof p.reason === 'string' ? ` (${textOrNull(p.reason, 50)})` : '';
    return `Deal ${p.reason === 'Unassigned' ? 'unassigned' : 'assigned'}${reason}: ${title}`;
  }),
});

export const TASK_CREATED = defineEvent<TaskPayload>({
  name: 'task.created',
  source,
  version: 1,
  description: 'a task was created',
  timeline: taskTimeline('Task created'),
});
export const TASK_UPDATED = defineEvent<TaskPayload>({ name: 'task.updated', source, version: 1, description: 'a task changed' });
export const TASK_COMPLETED = defineEvent<TaskPayload>({
  name: 'task.completed',
  source,
  version: 1,
  description: 'a task was marked done',
  timeline: taskTimeline('Task completed'),
});
export const NOTE_CREATED = defineEvent<NotePayload>({
  name: 'note.created',
  source,
  version: 1,
  description: 'a note was written',
  timeline: ({ note }) =>
    isPayloadObject(note)
      ? {
          contact_id: uuidOrNull(note.contact_id),
          deal_id: uuidOrNull(note.deal_id),
          company_id: uuidOrNull(note.company_id),
          summary: `Note: ${snippet(note.body)}`,
          data: pickScalars(note, ['id', 'body', 'author_id']),
          touches: 'deal',
        }
      : undefined,
});
export const NOTE_UPDATED = defineEvent<NotePayload>({ name: 'note.updated', source, version: 1, description: 'a note changed' });

export const CRM_EVENTS: EventContract[] = [
  CONTACT_CREATED,
  CONTACT_UPDATED,
  CONTACT_ASSIGNED,
  DEAL_CREATED,
  DEAL_UPDATED,
  DEAL_STAGE_CHANGED,
  DEAL_ASSIGNED,
  TASK_CREATED,
  TASK_UPDATED,
  TASK_COMPLETED,
  NOTE_CREATED,
  NOTE_UPDATED,
] as EventContract[];

const actor = (ctx: RequestContext) => ctx.userId;

export const contactEvent = (contract: EventContract<ContactPayload>, ctx: RequestContext, contact: ContactView) =>
  contract.create({ organizationId: ctx.organizationId, aggregateId: contact.id, payload: { contact, actor_id: actor(ctx) } });

export const dealEvent = (contract: EventContract<DealPayload>, ctx: RequestContext, deal: DealView, extra: Omit<DealPayload, 'deal' | 'actor_id'> = {}) =>
  contract.create({ organizationId: ctx.organizationId, aggregateId: deal.id, payload: { deal, actor_id: actor(ctx), ...extra } });

export const taskEvent = (contract: EventContract<TaskPayload>, ctx: RequestContext, task: TaskView) =>
  contract.create({ organizationId: ctx.organizationId, aggregateId: task.id, payload: { task, actor_id: actor(ctx) } });

export const noteEvent = (contract: EventContract<NotePayload>, ctx: RequestContext, note: NoteView) =>
  contract.create({ organizationId: ctx.organizationId, aggregateId: note.id, payload: { note, actor_id: actor(ctx) } });
