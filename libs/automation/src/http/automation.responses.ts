import { json } from '@engage/platform';
import { ACTION_TYPES, OPERATORS } from '../domain/catalogue';

const { text, boolean, arrayOf, object, oneOfValues } = json;
// Any JSON value: a condition's value or a field's actual value.
const anyValue = { description: 'any JSON value, or null' };

// The dry run: whether the rule would run, each condition's outcome (path as in validation
// errors), and what each action would do, in words.
export const RULE_TEST = object({
  matched: boolean,
  conditions: arrayOf(object({ path: text, field: text, operator: oneOfValues(OPERATORS), value: anyValue, actual: anyValue, matched: boolean })),
  actions: arrayOf(object({ type: oneOfValues(ACTION_TYPES), would: text })),
});
