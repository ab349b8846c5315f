import { DomainError } from '@engage/shared-kernel';

// A bot flow refused when saved: 400, the path of what is wrong (`definition.nodes[2].text`) first
// in the message and in details.path, as rules are refused.
export const botInvalid = (path: string, problem: string, details: Record<string, unknown> = {}) =>
  new DomainError('validation', 'bot_flow.invalid', `${path}: ${problem}`, { path, ...details });

// The rules' parsers (conditions, templates) refuse with the rules' code; a flow's refusal has its own.
export function asBotError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'automation_rule.invalid') {
      throw new DomainError('validation', 'bot_flow.invalid', error.message, error.details);
    }
    throw error;
  }
}
