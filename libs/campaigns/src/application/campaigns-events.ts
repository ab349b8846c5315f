import { MESSAGE_FIELDS, type MessagePayload } from '@engage/messaging';
import { defineEvent, type EventContract, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';

// The events campaigns publish (topic `campaigns`), each declared once.
const source = 'campaigns';

// A customer's reply that counts as a response (docs/campaigns.md, "Replies"): the reply is the
// record, as before campaigns owned the event, so integrators' `data` keeps its shape.
export type BroadcastResponsePayload = {
  message: MessagePayload['message'];
  actor_id: null;
  contact_id: string;
  conversation_id: string;
  replied_to_message_id: string;
  broadcast_id: string | null;
  campaign_id: unknown;
  sequence_id?: string | null;
};

export const BROADCAST_RESPONSE = defineEvent<BroadcastResponsePayload>({
  name: 'broadcast.response',
  source,
  version: 1,
  description: 'a contact replied to a broadcast within its reply window, or to a sequence’s message (the reply is the record)',
  webhook: { record: 'message', fields: MESSAGE_FIELDS, changes: ['replied_to_message_id', 'broadcast_id', 'campaign_id', 'sequence_id'] },
});

// An opt-out or opt-in keyword (docs/campaigns.md, "Opt-out keywords"): the contact's opt_in_status
// was set through the CRM; on the contact's timeline, and what sequences end enrolments on.
export type OptInChangePayload = {
  contact_id: string;
  opt_in_status: boolean;
  keyword: string;
  channel_kind: string;
  channel_account_id: string;
  conversation_id: string;
  message_id: string;
};

const optInChange = (name: string, description: string, label: string) =>
  defineEvent<OptInChangePayload>({
    name,
    source,
    version: 1,
    description,
    timeline: (payload) => {
      if (!isPayloadObject(payload)) return undefined;
      const keyword = typeof payload.keyword === 'string' ? payload.keyword : '';
      const channel = payload.channel_kind === 'sms' ? 'SMS' : 'the chat app';
      return {
        contact_id: uuidOrNull(payload.contact_id),
        deal_id: null,
        summary: `${label}: wrote ${keyword} on ${channel}`,
        data: { keyword, channel_kind: payload.channel_kind, message_id: payload.message_id, opt_in_status: payload.opt_in_status },
      };
    },
  });

export const CONTACT_OPTED_OUT = optInChange('contact.opted_out', 'a contact opted out by keyword (opt_in_status set to false)', 'Opted out');
export const CONTACT_OPTED_IN = optInChange('contact.opted_in', 'a contact opted in again by keyword (opt_in_status set to true)', 'Opted in');

export const CAMPAIGNS_EVENTS = [BROADCAST_RESPONSE, CONTACT_OPTED_OUT, CONTACT_OPTED_IN] as EventContract[];
