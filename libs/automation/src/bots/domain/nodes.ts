import { isUuid } from '@engage/shared-kernel';
import { CUSTOM_FIELD_KEY, type FieldSpec, LIMITS, templateFieldAllowed } from '../../domain/catalogue';
import { type ConditionGroup, parseConditions } from '../../domain/conditions';
import { isPlainObject, onlyKeys, quoted } from '../../domain/rule-error';
import { checkTemplate } from '../../domain/templates';
import { asBotError, botInvalid } from './bot-error';

// A flow's nodes (docs/automation.md, "Bot flows"): each type's fields checked when the flow is
// saved. Edges (`next`, choices' `next`, `on_timeout`, `on_error`, a branch's cases and default)
// may be missing or unknown in a draft; publishing checks the graph (graph.ts).

export const NODE_TYPES = ['message', 'ask', 'branch', 'set_field', 'add_tags', 'webhook', 'handoff', 'end'] as const;
export type NodeType = (typeof NODE_TYPES)[number];
export const VALIDATIONS = ['text', 'number', 'email', 'phone', 'choice'] as const;
export type Validation = (typeof VALIDATIONS)[number];

export interface Choice {
  label: string;
  value: string;
  next?: string;
}
export type BotNode =
  | { id: string; type: 'message'; text: string; media_url?: string; next?: string }
  | {
      id: string;
      type: 'ask';
      text: string;
      choices?: Choice[];
      save_as?: string;
      validate: Validation;
      retry_text?: string;
      max_retries: number;
      timeout_minutes?: number;
      on_timeout?: string;
      next?: string;
    }
  | { id: string; type: 'branch'; cases: { conditions: ConditionGroup; next?: string }[]; default?: string }
  | { id: string; type: 'set_field'; field: string; value: string | number | boolean | null; next?: string }
  | { id: string; type: 'add_tags'; tags: string[]; next?: string }
  | { id: string; type: 'webhook'; url: string; next?: string; on_error?: string }
  | { id: string; type: 'handoff'; assignee: string | null; note?: string }
  | { id: string; type: 'end'; text?: string };
export type AskNode = Extract<BotNode, { type: 'ask' }>;

export interface Definition {
  start: string;
  nodes: BotNode[];
}

export const BOT_LIMITS = { nodes: 200, choices: 20, cases: 20, label: 100, maxRetries: 10, timeoutMinutes: 43_200 } as const;
export const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const VARIABLE = /^variables\.([A-Za-z0-9_]{1,64})$/;
// Contact fields an answer or set_field may write: text columns, custom fields, and `emails` or
// `phones` (the value is added to the contact's list).
export const CONTACT_TARGETS = ['first_name', 'last_name', 'source', 'description', 'emails', 'phones'] as const;
export const CONTACT_PREFIX = 'contact.';

// `variables.<name>` or `contact.<field>` (`contact.custom_fields.<key>`), else undefined.
export function parseTarget(value: unknown): { kind: 'variable' | 'contact'; name: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const variable = VARIABLE.exec(value);
  if (variable) return { kind: 'variable', name: variable[1] };
  if (!value.startsWith(CONTACT_PREFIX)) return undefined;
  const field = value.slice(CONTACT_PREFIX.length);
  if ((CONTACT_TARGETS as readonly string[]).includes(field)) return { kind: 'contact', name: field };
  if (field.startsWith('custom_fields.') && CUSTOM_FIELD_KEY.test(field.slice('custom_fields.'.length))) return { kind: 'contact', name: field };
  return undefined;
}

// Fields a branch's conditions read: the session's variables, the contact and the moment.
const BRANCH_FIELDS: Record<string, FieldSpec> = {
  'contact.first_name': { kind: 'text', record: 'contact' },
  'contact.last_name': { kind: 'text', record: 'contact' },
  'contact.source': { kind: 'text', record: 'contact' },
  'contact.description': { kind: 'text', record: 'contact' },
  'contact.tags': { kind: 'list', record: 'contact' },
  'contact.emails': { kind: 'list', record: 'contact' },
  'contact.phones': { kind: 'list', record: 'contact' },
  'contact.opt_in_status': { kind: 'boolean', record: 'contact' },
  'contact.company_id': { kind: 'id', record: 'contact' },
  'time.weekday': { kind: 'enum', record: 'time', values: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] },
  'time.in_business_hours': { kind: 'boolean', record: 'time' },
};
export function branchField(field: string): FieldSpec | undefined {
  if (VARIABLE.test(field)) return { kind: 'any', record: 'contact' };
  if (field.startsWith('contact.custom_fields.'))
    return CUSTOM_FIELD_KEY.test(field.slice('contact.custom_fields.'.length)) ? { kind: 'any', record: 'contact' } : undefined;
  return Object.hasOwn(BRANCH_FIELDS, field) ? BRANCH_FIELDS[field] : undefined;
}

// Texts take the conversation's and contact's fields, as rules' texts do, and the variables.
const textField = (field: string) => VARIABLE.test(field) || templateFieldAllowed('conversation', field);

export function parseNode(value: unknown, path: string): BotNode {
  if (!isPlainObject(value)) throw botInvalid(path, 'must be an object with an "id" and a "type"');
  const id = value.id;
  if (typeof id !== 'string' || !NODE_ID.test(id)) throw botInvalid(`${path}.id`, 'is required: 1 to 64 letters, digits, "_" or "-"');
  const type = value.type;
  if (typeof type !== 'string' || !(NODE_TYPES as readonly string[]).includes(type)) {
    throw botInvalid(`${path}.type`, `${quoted(type)} is not a node type; one of ${NODE_TYPES.join(', ')}`);
  }
  const at = (key: string) => `${path}.${key}`;
  const keys = (...allowed: string[]) => onlyKeys(value, ['id', 'type', ...allowed], path);
  const text = (key: string, optional = false) => templated(value[key], at(key), optional);
  const edge = (key: string) => nodeRef(value[key], at(key));
  const opt = <T>(key: string, got: T | undefined) => (got === undefined ? {} : { [key]: got });
  switch (type as NodeType) {
    case 'message':
      keys('text', 'media_url', 'next');
      return {
        id,
        type: 'message',
        text: text('text') as string,
        ...opt('media_url', mediaUrl(value.media_url, at('media_url'))),
        ...opt('next', edge('next')),
      };
    case 'ask':
      keys('text', 'choices', 'save_as', 'validate', 'retry_text', 'max_retries', 'timeout_minutes', 'on_timeout', 'next');
      return parseAsk(value, id, path, text, edge);
    case 'branch': {
      keys('cases', 'default');
      const cases = value.cases;
      if (!Array.isArray(cases) || cases.length === 0) throw botInvalid(at('cases'), 'must be a non-empty array of {conditions, next}');
      if (cases.length > BOT_LIMITS.cases) throw botInvalid(at('cases'), `a branch has at most ${BOT_LIMITS.cases} cases`);
      const parsed = cases.map((item: unknown, index) => {
        const here = `${at('cases')}[${index}]`;
        if (!isPlainObject(item)) throw botInvalid(here, 'must be an object {conditions, next}');
        onlyKeys(item, ['conditions', 'next'], here);
        const conditions = asBotError(() => parseConditions(item.conditions, 'conversation', `${here}.conditions`, branchField));
        return { conditions, ...opt('next', nodeRef(item.next, `${here}.next`)) };
      });
      return { id, type: 'branch', cases: parsed, ...opt('default', edge('default')) };
    }
    case 'set_field': {
      keys('field', 'value', 'next');
      const target = parseTarget(value.field);
      if (!target)
        throw botInvalid(
          at('field'),
          'must be "variables.<name>" or "contact.<field>" (first_name, last_name, source, description, emails, phones, custom_fields.<key>)',
        );
      const given = value.value;
      let stored: string | number | boolean | null;
      if (typeof given === 'string') stored = templated(given, at('value'), false) as string;
      else if ((typeof given === 'number' && Number.isFinite(given)) || typeof given === 'boolean' || given === null) stored = given;
      else throw botInvalid(at('value'), 'must be a text, a number, true, false or null');
      if (target.kind === 'contact' && !target.name.startsWith('custom_fields.') && typeof stored !== 'string') {
        throw botInvalid(at('value'), `contact.${target.name} takes a text`);
      }
      return { id, type: 'set_field', field: value.field as string, value: stored, ...opt('next', edge('next')) };
    }
    case 'add_tags': {
      keys('tags', 'next');
      const tags = value.tags;
      if (!Array.isArray(tags) || tags.length === 0 || tags.length > LIMITS.tags) throw botInvalid(at('tags'), `must be 1 to ${LIMITS.tags} tags`);
      tags.forEach((tag, index) => {
        if (typeof tag !== 'string' || tag.trim() === '' || tag.length > LIMITS.tag)
          throw botInvalid(`${at('tags')}[${index}]`, `must be a tag of 1 to ${LIMITS.tag} characters`);
      });
      return { id, type: 'add_tags', tags: (tags as string[]).map((tag) => tag.trim()), ...opt('next', edge('next')) };
    }
    case 'webhook': {
      keys('url', 'next', 'on_error');
      const url = httpsUrl(value.url, at('url'));
      if (url === undefined) throw botInvalid(at('url'), 'is required: an https URL');
      return { id, type: 'webhook', url, ...opt('next', edge('next')), ...opt('on_error', edge('on_error')) };
    }
    case 'handoff': {
      keys('assignee', 'note');
      const assignee = value.assignee ?? null;
      if (assignee !== null && assignee !== 'round_robin' && !isUuid(assignee))
        throw botInvalid(at('assignee'), 'must be a member\'s UUID, "round_robin" or null');
      return { id, type: 'handoff', assignee: typeof assignee === 'string' ? assignee.toLowerCase() : null, ...opt('note', text('note', true)) };
    }
    case 'end':
      keys('text');
      return { id, type: 'end', ...opt('text', text('text', true)) };
  }
}

function parseAsk(
  value: Record<string, unknown>,
  id: string,
  path: string,
  text: (key: string, optional?: boolean) => string | undefined,
  edge: (key: string) => string | undefined,
): AskNode {
  const at = (key: string) => `${path}.${key}`;
  const validate = value.validate ?? 'text';
  if (typeof validate !== 'string' || !(VALIDATIONS as readonly string[]).includes(validate)) {
    throw botInvalid(at('validate'), `${quoted(validate)} is not a validation; one of ${VALIDATIONS.join(', ')}`);
  }
  let choices: Choice[] | undefined;
  if (value.choices !== undefined && value.choices !== null) {
    if (validate !== 'choice') throw botInvalid(at('choices'), 'only an ask with validate "choice" takes choices');
    if (!Array.isArray(value.choices)) throw botInvalid(at('choices'), 'must be an array of {label, value, next}');
    if (value.choices.length > BOT_LIMITS.choices) throw botInvalid(at('choices'), `an ask has at most ${BOT_LIMITS.choices} choices`);
    choices = value.choices.map((item: unknown, index) => {
      const here = `${at('choices')}[${index}]`;
      if (!isPlainObject(item)) throw botInvalid(here, 'must be an object {label, value, next}');
      onlyKeys(item, ['label', 'value', 'next'], here);
      const label = shortText(item.label, `${here}.label`);
      const choiceValue = item.value === undefined || item.value === null ? label : shortText(item.value, `${here}.value`);
      const next = nodeRef(item.next, `${here}.next`);
      return { label, value: choiceValue, ...(next === undefined ? {} : { next }) };
    });
  }
  let saveAs: string | undefined;
  if (value.save_as !== undefined && value.save_as !== null) {
    if (!parseTarget(value.save_as))
      throw botInvalid(
        at('save_as'),
        'must be "variables.<name>" or "contact.<field>" (first_name, last_name, source, description, emails, phones, custom_fields.<key>)',
      );
    saveAs = value.save_as as string;
  }
  if (saveAs === 'contact.emails' && validate !== 'email') throw botInvalid(at('validate'), 'an answer saved to contact.emails must be validated as "email"');
  if (saveAs === 'contact.phones' && validate !== 'phone') throw botInvalid(at('validate'), 'an answer saved to contact.phones must be validated as "phone"');
  const maxRetries = value.max_retries ?? 2;
  if (typeof maxRetries !== 'number' || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > BOT_LIMITS.maxRetries) {
    throw botInvalid(at('max_retries'), `must be a whole number from 0 to ${BOT_LIMITS.maxRetries}`);
  }
  let timeout: number | undefined;
  if (value.timeout_minutes !== undefined && value.timeout_minutes !== null) {
    const minutes = value.timeout_minutes;
    if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > BOT_LIMITS.timeoutMinutes) {
      throw botInvalid(at('timeout_minutes'), `must be a whole number from 1 to ${BOT_LIMITS.timeoutMinutes}`);
    }
    timeout = minutes;
  }
  const node: AskNode = { id, type: 'ask', text: text('text') as string, validate: validate as Validation, max_retries: maxRetries };
  const retry = text('retry_text', true);
  const onTimeout = edge('on_timeout');
  const next = edge('next');
  if (onTimeout !== undefined && timeout === undefined) throw botInvalid(at('on_timeout'), 'needs timeout_minutes');
  return {
    ...node,
    ...(choices ? { choices } : {}),
    ...(saveAs ? { save_as: saveAs } : {}),
    ...(retry !== undefined ? { retry_text: retry } : {}),
    ...(timeout !== undefined ? { timeout_minutes: timeout } : {}),
    ...(onTimeout !== undefined ? { on_timeout: onTimeout } : {}),
    ...(next !== undefined ? { next } : {}),
  };
}

// A node id an edge names; absent (undefined or null) in a draft. Whether it exists is publish's check.
function nodeRef(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !NODE_ID.test(value)) throw botInvalid(path, 'must be a node id: 1 to 64 letters, digits, "_" or "-"');
  return value;
}

function templated(value: unknown, path: string, optional: boolean): string | undefined {
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw botInvalid(path, 'is required: a non-empty text');
  if (value.length > LIMITS.text) throw botInvalid(path, `must be at most ${LIMITS.text} characters`);
  asBotError(() => checkTemplate(value, path, textField));
  return value;
}

function shortText(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw botInvalid(path, 'is required: a non-empty text');
  if (value.length > BOT_LIMITS.label) throw botInvalid(path, `must be at most ${BOT_LIMITS.label} characters`);
  return value.trim();
}

function httpsUrl(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > LIMITS.url) throw botInvalid(path, `must be an https URL of at most ${LIMITS.url} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw botInvalid(path, 'must be an https URL');
  }
  if (url.protocol !== 'https:') throw botInvalid(path, 'must be an https URL');
  if (url.username || url.password) throw botInvalid(path, 'must not carry a user or password');
  return value;
}

const mediaUrl = httpsUrl;
