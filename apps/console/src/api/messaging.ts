import { fromSupabase } from './errors';
import { callApi } from './functions';
import { rows } from './rest';
import { supabase } from './supabase';

// The inbox's reads and writes (docs/messaging.md, "Inbox endpoints", "Scheduled sends";
// docs/reengagement.md, "Review"). Lists with the contact and the last message come from the data
// API (/rest/v1, embeds); everything that acts goes through /functions/v1.

export const CONVERSATION_STATUSES = ['OPEN', 'PENDING', 'SNOOZED', 'RESOLVED'] as const;
export const CHANNEL_KINDS = ['chat_app', 'messenger', 'instagram', 'email', 'sms'] as const;

export interface Media {
  url: string;
  kind?: string;
}

export interface Message {
  id: string;
  direction: 'INBOUND' | 'OUTBOUND';
  status: string;
  content: string;
  media: Media[] | null;
  error: string | null;
  origin: string;
  scheduled_for: string | null;
  created_at: string;
  metadata: Record<string, unknown> | null;
}

export interface Conversation {
  id: string;
  contact_id: string;
  channel_account_id: string;
  channel_kind: string;
  status: string;
  snoozed_until: string | null;
  assignee_id: string | null;
  last_message_at: string | null;
  unread_count: number;
  last_customer_message_at: string | null;
  window_closes_at: string | null;
  email_subject: string | null;
}

export interface ConversationRow extends Conversation {
  contacts: { first_name: string; last_name: string | null; phones: string[] | null } | null;
  messages: Pick<Message, 'content' | 'direction' | 'created_at' | 'media'>[];
}

export interface ConversationFilters {
  status: string; // '' for every status
  who: 'all' | 'mine' | 'unassigned';
  channel: string; // '' for every kind
  unread: boolean;
  search: string;
}

export const PAGE_SIZE = 50;

// Newest first, page `page` (from 0) of 50, each with its contact and its last message, and the
// total that match; search on the contact's name (first or last).
export async function listConversations(
  filters: ConversationFilters,
  me: string | undefined,
  page: number,
): Promise<{ rows: ConversationRow[]; total: number }> {
  let query = supabase
    .from('conversations')
    .select('*,contacts!inner(first_name,last_name,phones),messages(content,direction,created_at,media)', { count: 'exact' })
    .order('last_message_at', { ascending: false, nullsFirst: false })
    .order('id') // a total order (the list index's), so pages neither repeat nor skip a row
    .order('created_at', { referencedTable: 'messages', ascending: false })
    .limit(1, { referencedTable: 'messages' })
    .range(page * PAGE_SIZE, (page + 1) * PAGE_SIZE - 1);
  if (filters.status) query = query.eq('status', filters.status);
  if (filters.who === 'mine' && me) query = query.eq('assignee_id', me);
  if (filters.who === 'unassigned') query = query.is('assignee_id', null);
  if (filters.channel) query = query.eq('channel_kind', filters.channel);
  if (filters.unread) query = query.gt('unread_count', 0);
  const term = filters.search.trim().replace(/[,()*]/g, ' ');
  if (term) {
    const like = `*${term}*`;
    query = query.or(`first_name.ilike.${like},last_name.ilike.${like}`, { referencedTable: 'contacts' });
  }
  const { data, error, count } = await query;
  if (error) throw fromSupabase(error);
  return { rows: (data ?? []) as ConversationRow[], total: count ?? 0 };
}

export const getConversation = (id: string) => callApi<Conversation & { messages: Message[] }>(`/functions/v1/messaging/conversations/${id}?limit=100`);

export const unreadCounts = (mine: boolean) =>
  callApi<{ total: number; conversations: number; by_status: Record<string, number> }>(`/functions/v1/messaging/unread-counts${mine ? '?mine=true' : ''}`);

export const markRead = (id: string) => callApi<Conversation>(`/functions/v1/messaging/conversations/${id}/read`, { method: 'POST' });

export const reply = (id: string, body: { message: string; media_urls?: string[] }) =>
  callApi<{ success: true }>(`/functions/v1/messaging/conversations/${id}/reply`, { method: 'POST', body });

export const setStatus = (id: string, status: string, snoozedUntil?: string) =>
  callApi<Conversation>(`/functions/v1/messaging/conversations/${id}/status`, {
    method: 'PATCH',
    body: snoozedUntil ? { status, snoozed_until: snoozedUntil } : { status },
  });

export const assign = (id: string, assigneeId: string | null) =>
  callApi<Conversation>(`/functions/v1/messaging/conversations/${id}/assignee`, { method: 'PATCH', body: { assignee_id: assigneeId } });

// Members of the organization (profiles are readable by every member: assignee pickers).
export interface Member {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}
export const listMembers = () => rows<Member>(supabase.from('profiles').select('id,first_name,last_name,email').order('first_name'));

export interface ContactCard {
  id: string;
  first_name: string;
  last_name: string | null;
  phones: string[];
  emails: string[];
  tags: string[];
  description: string | null;
  opt_in_status: string | null;
  custom_fields: Record<string, unknown> | null;
  companies: { id: string; name: string } | null;
}
export const getContact = async (id: string): Promise<ContactCard | undefined> =>
  (await rows<ContactCard>(supabase.from('contacts').select('*,companies(id,name)').eq('id', id).limit(1)))[0];

// The contact's latest activity (the CRM timeline), newest first.
export interface TimelineEntry {
  id: string;
  type: string;
  summary: string;
  occurred_at: string;
}
export const contactTimeline = (contactId: string) =>
  rows<TimelineEntry>(
    supabase.from('timeline_entries').select('id,type,summary,occurred_at').eq('contact_id', contactId).order('occurred_at', { ascending: false }).limit(10),
  );

export interface ScheduledMessage {
  id: string;
  conversation_id: string;
  status: string;
  send_at: string;
  text: string;
  error: string | null;
  sent_at: string | null;
}
const SCHEDULED = '/functions/v1/messaging/scheduled-messages';
export const listScheduled = async (conversationId: string) =>
  (await callApi<{ scheduled_messages: ScheduledMessage[] }>(`${SCHEDULED}?conversation_id=${conversationId}&limit=50`)).scheduled_messages;
export const schedule = (conversationId: string, body: { text: string; send_at: string }) =>
  callApi<ScheduledMessage>(`/functions/v1/messaging/conversations/${conversationId}/scheduled-messages`, { method: 'POST', body });
export const editScheduled = (id: string, body: { text?: string; send_at?: string }) =>
  callApi<ScheduledMessage>(`${SCHEDULED}/${id}`, { method: 'PATCH', body });
export const cancelScheduled = (id: string) => callApi<ScheduledMessage>(`${SCHEDULED}/${id}`, { method: 'DELETE' });

// Re-engagement drafts waiting for an agent, read through the data API for one conversation.
export interface Draft {
  id: string;
  status: string;
  text: string | null;
  window_closes_at: string;
  created_at: string;
}
export const listDrafts = (conversationId: string) =>
  rows<Draft>(
    supabase
      .from('reengagement_nudges')
      .select('id,status,text,window_closes_at,created_at')
      .eq('conversation_id', conversationId)
      .eq('status', 'draft')
      .order('created_at', { ascending: false }),
  );
const DRAFTS = '/functions/v1/reengagement/drafts';
export const approveDraft = (id: string) => callApi(`${DRAFTS}/${id}/approve`, { method: 'POST' });
export const editDraft = (id: string, text: string) => callApi(`${DRAFTS}/${id}/edit`, { method: 'POST', body: { text } });
export const skipDraft = (id: string) => callApi(`${DRAFTS}/${id}/skip`, { method: 'POST' });
