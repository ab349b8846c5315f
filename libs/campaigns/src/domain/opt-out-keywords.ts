// Opt-out and opt-in keywords (docs/campaigns.md, "Opt-out keywords"): a customer's whole message,
// trimmed, compared without regard to case with the organization's lists (its settings
// opt_out_keywords and opt_in_keywords, these defaults when unset). A word in both lists opts out.
export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'UNSTOP'] as const;
// The channels a keyword is read on: those that address a phone number.
export const KEYWORD_CHANNELS = ['sms', 'chat_app'] as const;
// No keyword is longer (identity's check of the settings), so longer texts are not looked up.
const MAX_KEYWORD_LENGTH = 32;

export interface KeywordLists {
  optOut: readonly string[];
  optIn: readonly string[];
}

export type KeywordMatch = { optInStatus: boolean; keyword: string };

// A stored list (the setting's JSON text, checked when it was set) or the defaults.
export function keywordListOf(stored: string | null, defaults: readonly string[]): readonly string[] {
  if (stored === null) return defaults;
  try {
    const list: unknown = JSON.parse(stored);
    return Array.isArray(list) && list.length > 0 && list.every((word) => typeof word === 'string') ? (list as string[]) : defaults;
  } catch {
    return defaults;
  }
}

// Whether a text could be a keyword at all: one word of at most 32 characters once trimmed.
export function mayBeKeyword(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_KEYWORD_LENGTH && !/\s/u.test(trimmed);
}

export function matchKeyword(text: unknown, lists: KeywordLists): KeywordMatch | null {
  if (!mayBeKeyword(text)) return null;
  const folded = text.trim().toLowerCase();
  const find = (list: readonly string[]) => list.find((word) => word.toLowerCase() === folded);
  const out = find(lists.optOut);
  if (out !== undefined) return { optInStatus: false, keyword: out };
  const back = find(lists.optIn);
  return back !== undefined ? { optInStatus: true, keyword: back } : null;
}
