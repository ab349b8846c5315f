// Moved to the shared kernel (rules' and campaigns' texts); a rule's refusal keeps its code.
import { checkTemplate as check, type Placeholder } from '@engage/shared-kernel';
export { escapeHtml, renderTemplate, type Placeholder } from '@engage/shared-kernel';
export const checkTemplate = (text: string, path: string, allowed: (field: string) => boolean): Placeholder[] =>
  check(text, path, allowed, 'automation_rule.invalid');
