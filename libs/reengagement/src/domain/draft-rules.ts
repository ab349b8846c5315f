import { DomainError } from '@engage/shared-kernel';

// §8: the AI reads the conversation's last 10 messages; a nudge is at most 1,000 characters.
export const CONTEXT_MESSAGES = 10;
export const MAX_NUDGE_CHARACTERS = 1000;
const HOUR = 3_600_000;
export const WINDOW_MS = 24 * HOUR;

export interface ContextMessage {
  direction: 'INBOUND' | 'OUTBOUND' | string;
  content: string | null;
}

export type Language = 'ar' | 'latin' | null;

// The script the customer writes in, told from their own messages: Arabic or Latin letters, or
// unknown (no letters). Drafts must come back in the same script.
export function customerLanguage(messages: ContextMessage[]): Language {
  const text = messages
    .filter((m) => m.direction === 'INBOUND')
    .map((m) => m.content ?? '')
    .join(' ');
  const arabic = (text.match(/[\u0600-\u06FF]/g) ?? []).length;
  const latin = (text.match(/[A-Za-z\u00C0-\u024F]/g) ?? []).length;
  if (arabic === 0 && latin === 0) return null;
  return arabic >= latin ? 'ar' : 'latin';
}

// Leftover placeholders the model was never meant to write: {{first_name}}, [NAME], <name>, {name}.
const TEMPLATE_MARKERS = /\{\{[^}]*\}\}|\{[A-Za-z_][A-Za-z0-9_ ]*\}|\[[A-Z][A-Z0-9_ ]+\]|<[A-Za-z_]+>/;

// What the AI wrote, accepted only when it can go to the customer as it is: trimmed, not empty, at
// most 1,000 characters, no template markers, in the customer's script when that is known.
export function guardDraft(raw: unknown, language: Language): { ok: true; text: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string') return { ok: false, reason: 'the AI answered no text' };
  const text = raw
    .trim()
    .replace(/^"(.*)"$/s, '$1')
    .trim();
  if (text.length === 0) return { ok: false, reason: 'the AI answered an empty draft' };
  if ([...text].length > MAX_NUDGE_CHARACTERS) return { ok: false, reason: `the draft is longer than ${MAX_NUDGE_CHARACTERS} characters` };
  if (TEMPLATE_MARKERS.test(text)) return { ok: false, reason: 'the draft contains a template marker' };
  const drafted = customerLanguage([{ direction: 'INBOUND', content: text }]);
  if (language && drafted && drafted !== language) return { ok: false, reason: 'the draft is not in the customer’s language' };
  return { ok: true, text };
}

// The chat-completions messages: instructions (with the organization's guidelines and the language
// hint), then the conversation as the model should read it.
export function draftPrompt(input: { contactName: string | null; guidelines: string; messages: ContextMessage[]; language: Language }) {
  const system = [
    'You write one short, friendly follow-up message from a business to a customer who has not answered for almost a day.',
    'Continue the conversation naturally; do not invent facts, prices or offers that the conversation does not contain.',
    `Answer with the message text only, at most ${MAX_NUDGE_CHARACTERS} characters, without placeholders such as {{name}} or [NAME].`,
    input.language === 'ar' ? 'The customer writes in Arabic: write in Arabic.' : 'Write in the language the customer writes in.',
    input.guidelines.trim() ? `The business's guidelines: ${input.guidelines.trim()}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const transcript = input.messages
    .filter((m) => m.content)
    .map((m) => `${m.direction === 'INBOUND' ? 'Customer' : 'Business'}: ${m.content}`)
    .join('\n');
  const who = input.contactName ? `The customer's name: ${input.contactName}.\n` : '';
  return [
    { role: 'system', content: system },
    { role: 'user', content: `${who}The conversation so far (oldest first):\n${transcript}` },
  ];
}

// The nudge's window: the channel's own end when it has one, else the last customer message + 24 h.
export function windowEnd(lastCustomerMessageAt: Date, channelWindowClosesAt: Date | null): Date {
  return channelWindowClosesAt ?? new Date(lastCustomerMessageAt.getTime() + WINDOW_MS);
}

export const reengagementError = (kind: 'validation' | 'unprocessable' | 'conflict', code: string, message: string) =>
  new DomainError(kind, `reengagement.${code}`, message);
