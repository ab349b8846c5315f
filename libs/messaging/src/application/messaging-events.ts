import {
  defineEvent,
  type EventContract,
  isPayloadObject,
  pickScalars,
  type RequestContext,
  snippet,
  type TimelineProjection,
  uuidOrNull,
} from '@engage/shared-kernel';
import type { ConversationView, MessageView } from './views';

// The events messaging publishes (topic `messaging`), each declared once: payload type, the public
// `data` of its §6 webhook kind (docs/webhooks.md), and what it adds to the CRM's timelines.

export type MessagePayload = {
  message: MessageView;
  actor_id: string | null;
  contact_id?: string;
  from_status?: string;
  reason?: string;
  // message.received on the chat app and SMS: the channel's kind, and (when the message replied to is
  // a broadcast's or a sequence's) that message, for campaigns' replies (docs/campaigns.md).
  channel_kind?: string;
  replied_to?: CampaignReplyTarget;
};
// The automated message a customer's message answers: by its reply_to, else the conversation's
// last outbound message.
export type CampaignReplyTarget = { message_id: string; origin: 'broadcast' | 'sequence'; origin_id: string | null; campaign_id: unknown };
export type ConversationPayload = {
  conversation: ConversationView;
  actor_id: string | null;
  from_status?: string;
  to_status?: string;
  previous_assignee_id?: string | null;
};

// What integrators receive as `data` (§6): these fields, whatever the views grow. Exported for the
// events of other contexts whose record is a message (campaigns' broadcast.response).
export const MESSAGE_FIELDS = [
  'id',
  'organization_id',
  'conversation_id',
  'contact_id',
  'channel_account_id',
  'direction',
  'status',
  'content',
  'media',
  'external_id',
  'metadata',
  'error',
  'created_at',
  'updated_at',
  'origin',
  'origin_id',
  // A QUEUED message's expected time (the paced send queue), null otherwise.
  'scheduled_for',
] as const;
const CONVERSATION_FIELDS = [
  'id',
  'organization_id',
  'contact_id',
  'channel_account_id',
  'channel_kind',
  'status',
  'assignee_id',
  'unread_count',
  'snoozed_until',
  'last_message_at',
  'last_customer_message_at',
  'window_closes_at',
  'email_subject',
  'created_at',
  'updated_at',
] as const;

const source = 'messaging';

// A message on its contact's timeline; it counts as activity for the contact's deals.
function messageTimeline(label: string) {
  return ({ message }: MessagePayload): TimelineProjection | undefined => {
    if (!isPayloadObject(message)) return undefined;
    const content = snippet(message.content);
    const data = pickScalars(message, ['id', 'conversation_id', 'channel_account_id', 'direction', 'status', 'content', 'created_at']);
    return { contact_id: uuidOrNull(message.contact_id), deal_id: null, summary: content ? `${label}: ${content}` : label, data, touches: 'contact' };
  };
}

type MessageChange = Exclude<keyof MessagePayload, 'message' | 'actor_id'>;

const message = (name: string, description: string, changes: MessageChange[] = [], label?: string) =>
  defineEvent<MessagePayload>({
    name,
    source,
    version: 1,
    description,
    webhook: { record: 'message', fields: MESSAGE_FIELDS, changes },
    timeline: label ? messageTimeline(label) : undefined,
  });

const conversation = (name: string, description: string, changes: ('from_status' | 'to_status' | 'previous_assignee_id')[] = []) =>
  defineEvent<ConversationPayload>({ name, source, version: 1, description, webhook: { record: 'conversation', fields: CONVERSATION_FIELDS, changes } });

export const MESSAGE_RECEIVED = message('message.received', 'a contact’s message arrived (changes: its contact)', ['contact_id'], 'Message received');
export const MESSAGE_SENT = message('message.sent', 'the provider accepted an outbound message', [], 'Message sent');
export const MESSAGE_DELIVERED = message('message.delivered', 'the provider reported an outbound message delivered', ['from_status']);
export const MESSAGE_READ = message('message.read', 'the provider reported an outbound message read', ['from_status']);
export const MESSAGE_FAILED = message('message.failed', 'an outbound message failed: refused, reported failed, or interrupted', ['from_status', 'reason']);
export const CONVERSATION_CREATED = conversation('conversation.created', 'a conversation with a contact on a channel was opened');
export const CONVERSATION_ASSIGNED = conversation('conversation.assigned', 'a conversation got another assignee (or none)', ['previous_assignee_id']);
export const CONVERSATION_STATUS_CHANGED = conversation('conversation.status.changed', 'a conversation moved to another status (by hand or by a reply)', [
  'from_status',
  'to_status',
]);

export const MESSAGING_EVENTS: EventContract[] = [
  CONVERSATION_CREATED,
  CONVERSATION_ASSIGNED,
  CONVERSATION_STATUS_CHANGED,
  MESSAGE_RECEIVED,
  MESSAGE_SENT,
  MESSAGE_DELIVERED,
  MESSAGE_READ,
  MESSAGE_FAILED,
] as EventContract[];

// A provider's status callback names the status; each has its declared event.
export const MESSAGE_STATUS_EVENTS = { delivered: MESSAGE_DELIVERED, read: MESSAGE_READ, failed: MESSAGE_FAILED } as const;

const actorOf = (ctx: RequestContext) => ctx.userId ?? null;

type MessageExtra = Omit<MessagePayload, 'message' | 'actor_id'>;
type ConversationExtra = Omit<ConversationPayload, 'conversation' | 'actor_id'>;

export const messageEvent = (contract: EventContract<MessagePayload>, ctx: RequestContext, message: MessageView, extra: MessageExtra = {}) =>
  contract.create({ organizationId: message.organization_id, aggregateId: message.id, payload: { message, actor_id: actorOf(ctx), ...extra } });

export const conversationEvent = (contract: EventContract<ConversationPayload>, ctx: RequestContext, view: ConversationView, extra: ConversationExtra = {}) =>
  contract.create({
    organizationId: view.organization_id,
    aggregateId: view.id,
    payload: { conversation: view, actor_id: actorOf(ctx), ...extra },
  });
