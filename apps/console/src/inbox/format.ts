import type { Conversation, Message } from '../api/messaging';

const HOUR = 3_600_000;

export const CHANNEL_LABELS: Record<string, string> = {
  chat_app: 'Chat app',
  messenger: 'Messenger',
  instagram: 'Instagram',
  email: 'Email',
  sms: 'SMS',
};
export const channelLabel = (kind: string) => CHANNEL_LABELS[kind] ?? kind;

export const STATUS_LABELS: Record<string, string> = { OPEN: 'Open', PENDING: 'Pending', SNOOZED: 'Snoozed', RESOLVED: 'Resolved' };

// "3 h", "45 min", "2 d": a span for people.
export function span(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} d`;
}

// Today: the time; otherwise the date and time.
export function shortTime(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : date.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

export const longTime = (value: string | null | undefined): string => (value ? new Date(value).toLocaleString() : '');

// What the channel lets an agent do now (docs/messaging.md, "The window rule"): Messenger and
// Instagram answer freely for 24 h after the customer's last message, then with the HUMAN_AGENT
// tag up to 7 days, then not at all; the chat app and email have no window; SMS is not answered here.
export interface WindowNote {
  tone: 'ok' | 'warn' | 'closed';
  text: string;
}

export function windowNote(conversation: Conversation, now = Date.now()): WindowNote | null {
  const kind = conversation.channel_kind;
  if (kind === 'sms') return { tone: 'closed', text: 'SMS conversations are answered by broadcasts and sequences, not from the inbox.' };
  if (kind !== 'messenger' && kind !== 'instagram') return null;
  if (!conversation.window_closes_at || !conversation.last_customer_message_at) {
    return { tone: 'closed', text: 'Closed: the customer has not written on this channel yet.' };
  }
  const closes = new Date(conversation.window_closes_at).getTime();
  const humanEnds = new Date(conversation.last_customer_message_at).getTime() + 7 * 24 * HOUR;
  if (now < closes) return { tone: 'ok', text: `Window closes in ${span(closes - now)} (${longTime(conversation.window_closes_at)}).` };
  if (now < humanEnds) {
    return {
      tone: 'warn',
      text: `The 24-hour window closed ${span(now - closes)} ago; replies go out with the HUMAN_AGENT tag for ${span(humanEnds - now)} more (until ${longTime(new Date(humanEnds).toISOString())}).`,
    };
  }
  return { tone: 'closed', text: `Closed since ${longTime(new Date(humanEnds).toISOString())}: replies are refused until the customer writes again.` };
}

// A message's status as an agent reads it: the expected time of a queued one, the reason of a failed one.
export function statusText(message: Message): string {
  if (message.direction === 'INBOUND') return 'Received';
  switch (message.status) {
    case 'QUEUED':
      return message.scheduled_for ? `Queued, expected ${shortTime(message.scheduled_for)}` : 'Queued';
    case 'PENDING':
      return 'Sending';
    case 'SENT':
      return 'Sent';
    case 'DELIVERED':
      return 'Delivered';
    case 'READ':
      return 'Read';
    case 'FAILED':
      return `Failed: ${message.error ?? 'no reason given'}`;
    default:
      return message.status;
  }
}

// A datetime-local input's value (local time, minutes) and back to ISO with the offset.
export function localInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
export const fromLocalInput = (value: string): string => new Date(value).toISOString();
