import { RE2JS } from 're2js';

// `matches` patterns run on RE2's linear-time engine (re2js, a pure JavaScript port of RE2): its
// time grows with the input, never exponentially, whatever the pattern. RE2 has no construct that
// needs backtracking (backreferences, lookaround), so such a pattern is refused when saved, as is
// one that does not compile, or whose compiled program is too large. Case-sensitive unless the pattern says `(?i)`.

export const MAX_PATTERN_LENGTH = 500;
// The compiled program's size bounds the work per character of input (`a{1000}` is about 1,000).
export const MAX_PROGRAM_SIZE = 5000;

// Why a pattern is refused, or undefined when it compiles.
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  let size: number;
  try {
    size = compiled(pattern).programSize();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a regular expression the linear-time engine accepts (${reason.slice(0, 200)}); backreferences and lookaround are not supported`;
  }
  return size > MAX_PROGRAM_SIZE ? `is too large once compiled (${size} steps, at most ${MAX_PROGRAM_SIZE}); use smaller repeat counts` : undefined;
}

const cache = new Map<string, RE2JS>();
const CACHE_SIZE = 500;

function compiled(pattern: string): RE2JS {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(pattern);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, regex);
  }
  return regex;
}

// Whether the pattern matches somewhere in the text.
export const patternFinds = (pattern: string, text: string): boolean => compiled(pattern).matcher(text).find();
