// How an email finds its conversation: by the ids of the mails it answers (In-Reply-To, then
// References, newest first), else by its subject without reply and forward prefixes from the same
// sender within THREAD_SUBJECT_WINDOW_MS.

export const THREAD_SUBJECT_WINDOW_MS = 7 * 24 * 3_600_000;

// Re:, Fwd:, Fw:, AW: (German), SV: (Scandinavian), WG: (German forward), repeated or counted ("Re: Fwd: Re[2]: ...").
const PREFIX = /^\s*(?:(?:re|fwd?|aw|sv|wg)(?:\[\d+\]|\(\d+\))?\s*:\s*)+/i;

// Kept as written (the reply says "Re: <it>"); compared without regard to case.
export function threadSubject(subject: string | null | undefined): string | null {
  if (!subject) return null;
  let s = subject.replace(/\s+/g, ' ').trim();
  for (let before = ''; before !== s;) {
    before = s;
    s = s.replace(PREFIX, '').trim();
  }
  s = s.slice(0, 1000);
  return s.length > 0 ? s : null;
}

// Message-IDs as written in headers: "<id@host>", possibly several separated by spaces or commas.
export function messageIds(value: string | string[] | null | undefined): string[] {
  const raw = Array.isArray(value) ? value.join(' ') : (value ?? '');
  const ids = raw.match(/<[^<>\s]{1,998}>/g) ?? [];
  return [...new Set(ids)];
}

// The ids an incoming mail answers, most specific first: In-Reply-To, then References newest first.
export function answeredIds(inReplyTo: string | null | undefined, references: string | string[] | null | undefined): string[] {
  return [...new Set([...messageIds(inReplyTo), ...messageIds(references).reverse()])].slice(0, 100);
}

// The subject of our reply: the one the agent gave, else "Re: " and the thread's.
export function replySubject(given: string | undefined, threadOriginal: string | null): string {
  if (given) return given;
  return `Re: ${threadOriginal ?? '(no subject)'}`;
}

// References of a reply: the answered mail's references followed by its own id (RFC 5322 3.6.4),
// capped so the header stays reasonable on long threads (the first id is kept, as clients do).
export function replyReferences(answered: string | null, answeredReferences: string[]): string[] {
  if (!answered) return [];
  const chain = [...answeredReferences, answered];
  return chain.length > 20 ? [chain[0], ...chain.slice(-19)] : chain;
}
