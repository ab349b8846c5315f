import { DomainError } from '@engage/shared-kernel';

// A rule refused when saved: 400, the path of what is wrong (`conditions.all[1].operator`) first in
// the message and in details.path, so a client can point at it.
export const ruleInvalid = (path: string, problem: string, details: Record<string, unknown> = {}) =>
  new DomainError('validation', 'automation_rule.invalid', `${path}: ${problem}`, { path, ...details });

// A value as a message quotes it: short, never the whole of what a client sent.
export function quoted(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// Refuses keys other than `allowed` (a typo never silently drops what the rule meant).
export function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw ruleInvalid(`${path}.${extra.slice(0, 64)}`, `unknown key; allowed here: ${allowed.join(', ')}`);
}
