import { isUuid } from '@engage/shared-kernel';
import {
  ACTION_TARGETS,
  ACTION_TYPES,
  CUSTOM_FIELD_KEY,
  isActionType,
  LIMITS,
  reaches,
  SETTABLE_CONTACT_FIELDS,
  SETTABLE_CONVERSATION_STATUSES,
  type SubjectType,
  templateFieldAllowed,
} from './catalogue';
import { isPlainObject, onlyKeys, quoted, ruleInvalid } from './rule-error';
import { checkTemplate } from './templates';

// A rule's actions: a union discriminated by `type`, each validated by its own rule below and run
// in order by an exhaustive switch (the engine's, and the dry run's description).
export type Assignee = string | 'round_robin';
export type Action =
  | { type: 'send_message'; text: string; media_url?: string }
  | { type: 'assign_conversation'; user_id: Assignee }
  | { type: 'set_conversation_status'; status: (typeof SETTABLE_CONVERSATION_STATUSES)[number] }
  | { type: 'add_contact_tags'; tags: string[] }
  | { type: 'remove_contact_tags'; tags: string[] }
  | { type: 'set_contact_field'; field: string; value: string | number | boolean | null }
  | { type: 'set_deal_stage'; stage: string }
  | { type: 'assign_deal_owner'; user_id: Assignee }
  | { type: 'add_note'; text: string }
  | { type: 'create_task'; title: string; due_in_minutes: number; assignee_id?: string }
  | { type: 'start_bot'; bot_flow_id: string }
  | { type: 'start_sequence'; sequence_id: string }
  | { type: 'stop_sequences' }
  | { type: 'send_webhook'; url: string; secret?: string }
  | { type: 'wait'; minutes: number };

export const WAIT_MINUTES = { min: 1, max: 43_200 } as const;
// A stored webhook secret is shown as its last four characters: `****abcd`.
export const MASKED_SECRET = /^\*{4}[\s\S]{4}$/;
const SECRET_LENGTH = { min: 16, max: 256 };

export function parseActions(value: unknown, subject: SubjectType, path = 'actions'): Action[] {
  if (!Array.isArray(value) || value.length === 0) throw ruleInvalid(path, 'must be a non-empty array of actions');
  if (value.length > LIMITS.actions) throw ruleInvalid(path, `a rule has at most ${LIMITS.actions} actions`);
  const actions = value.map((item, index) => parseAction(item, subject, `${path}[${index}]`));
  if (actions[actions.length - 1].type === 'wait') throw ruleInvalid(`${path}[${actions.length - 1}]`, 'a wait must be followed by the actions it delays');
  return actions;
}

function parseAction(value: unknown, subject: SubjectType, path: string): Action {
  if (!isPlainObject(value)) throw ruleInvalid(path, 'must be an object with a "type"');
  const type = value.type;
  if (!isActionType(type)) throw ruleInvalid(`${path}.type`, `${quoted(type)} is not an action; one of ${ACTION_TYPES.join(', ')}`);
  const target = ACTION_TARGETS[type];
  if (target !== null && !reaches(subject, target)) throw ruleInvalid(`${path}.type`, `${type} needs a ${target}, and this rule's event is about a ${subject}`);
  const at = (key: string) => `${path}.${key}`;
  const keys = (...allowed: string[]) => onlyKeys(value, ['type', ...allowed], path);
  const text = (key: string, max: number) => templated(value[key], at(key), max, subject);
  switch (type) {
    case 'send_message': {
      keys('text', 'media_url');
      const action: Action = { type, text: text('text', LIMITS.text) };
      return value.media_url === undefined || value.media_url === null ? action : { ...action, media_url: httpsUrl(value.media_url, at('media_url')) };
    }
    case 'assign_conversation':
    case 'assign_deal_owner':
      keys('user_id');
      return { type, user_id: assignee(value.user_id, at('user_id')) };
    case 'set_conversation_status': {
      keys('status');
      const status = value.status;
      if (!SETTABLE_CONVERSATION_STATUSES.includes(status as never)) {
        throw ruleInvalid(at('status'), `${quoted(status)} is not one of ${SETTABLE_CONVERSATION_STATUSES.join(', ')}`);
      }
      return { type, status: status as (typeof SETTABLE_CONVERSATION_STATUSES)[number] };
    }
    case 'add_contact_tags':
    case 'remove_contact_tags':
      keys('tags');
      return { type, tags: tags(value.tags, at('tags')) };
    case 'set_contact_field': {
      keys('field', 'value');
      return { type, ...contactField(value.field, value.value, path, subject) };
    }
    case 'set_deal_stage':
      keys('stage');
      return { type, stage: plainText(value.stage, at('stage'), 100) };
    case 'add_note':
      keys('text');
      return { type, text: text('text', LIMITS.text) };
    case 'create_task': {
      keys('title', 'due_in_minutes', 'assignee_id');
      const action: Action = {
        type,
        title: text('title', LIMITS.title),
        due_in_minutes: whole(value.due_in_minutes, at('due_in_minutes'), 0, LIMITS.taskMinutes),
      };
      if (value.assignee_id === undefined || value.assignee_id === null) return action;
      if (!isUuid(value.assignee_id)) throw ruleInvalid(at('assignee_id'), 'must be a UUID (a member of the organization)');
      return { ...action, assignee_id: value.assignee_id.toLowerCase() };
    }
    case 'start_bot':
      keys('bot_flow_id');
      if (!isUuid(value.bot_flow_id)) throw ruleInvalid(at('bot_flow_id'), 'must be the UUID of a bot flow');
      return { type, bot_flow_id: value.bot_flow_id.toLowerCase() };
    case 'start_sequence':
      keys('sequence_id');
      if (!isUuid(value.sequence_id)) throw ruleInvalid(at('sequence_id'), 'must be the UUID of a sequence');
      return { type, sequence_id: value.sequence_id.toLowerCase() };
    case 'stop_sequences':
      keys();
      return { type };
    case 'send_webhook': {
      keys('url', 'secret');
      const action: Action = { type, url: httpsUrl(value.url, at('url')) };
      if (value.secret === undefined || value.secret === null) return action;
      return { ...action, secret: secret(value.secret, at('secret')) };
    }
    case 'wait':
      keys('minutes');
      return { type, minutes: whole(value.minutes, at('minutes'), WAIT_MINUTES.min, WAIT_MINUTES.max) };
  }
}

function plainText(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw ruleInvalid(path, 'is required: a non-empty string');
  if (value.length > max) throw ruleInvalid(path, `must be at most ${max} characters`);
  return value.trim();
}

function templated(value: unknown, path: string, max: number, subject: SubjectType): string {
  const text = plainText(value, path, max);
  checkTemplate(text, path, (field) => templateFieldAllowed(subject, field));
  return text;
}

function whole(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw ruleInvalid(path, `must be a whole number from ${min} to ${max}`);
  return value;
}

function assignee(value: unknown, path: string): Assignee {
  if (value === 'round_robin') return value;
  if (!isUuid(value)) throw ruleInvalid(path, 'must be a member\'s UUID or "round_robin"');
  return value.toLowerCase();
}

function tags(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw ruleInvalid(path, 'must be a non-empty array of tags');
  if (value.length > LIMITS.tags) throw ruleInvalid(path, `may hold at most ${LIMITS.tags} tags`);
  return [...new Set(value.map((tag, index) => plainText(tag, `${path}[${index}]`, LIMITS.tag)))];
}

// https only, no credentials in it; where it may lead is checked again, with DNS, when it is used.
function httpsUrl(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') throw ruleInvalid(path, 'is required: an https:// address');
  if (value.length > LIMITS.url) throw ruleInvalid(path, `must be at most ${LIMITS.url} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ruleInvalid(path, 'is not an address');
  }
  if (url.protocol !== 'https:') throw ruleInvalid(path, 'must start with https://');
  if (url.username !== '' || url.password !== '') throw ruleInvalid(path, 'must not carry a user name or password');
  return value;
}

function secret(value: unknown, path: string): string {
  if (typeof value !== 'string') throw ruleInvalid(path, 'must be a string');
  if (MASKED_SECRET.test(value)) return value;
  if (value.length < SECRET_LENGTH.min || value.length > SECRET_LENGTH.max || !/^[\x21-\x7e]+$/.test(value)) {
    throw ruleInvalid(path, `must be ${SECRET_LENGTH.min} to ${SECRET_LENGTH.max} printable characters without spaces`);
  }
  return value;
}

function contactField(field: unknown, value: unknown, path: string, subject: SubjectType): { field: string; value: string | number | boolean | null } {
  if (typeof field !== 'string' || field === '') throw ruleInvalid(`${path}.field`, 'is required: a contact column or custom_fields.<key>');
  const at = `${path}.value`;
  if (field.startsWith('custom_fields.')) {
    if (!CUSTOM_FIELD_KEY.test(field.slice('custom_fields.'.length)))
      throw ruleInvalid(`${path}.field`, 'a custom field key is 1 to 100 letters, digits, _ or -');
    if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return { field, value };
    return { field, value: templated(value, at, LIMITS.stringValue, subject) };
  }
  if (!Object.hasOwn(SETTABLE_CONTACT_FIELDS, field)) {
    throw ruleInvalid(
      `${path}.field`,
      `${quoted(field)} is not a field rules may set; one of ${Object.keys(SETTABLE_CONTACT_FIELDS).join(', ')}, custom_fields.<key>`,
    );
  }
  switch (SETTABLE_CONTACT_FIELDS[field as keyof typeof SETTABLE_CONTACT_FIELDS]) {
    case 'boolean':
      if (typeof value !== 'boolean') throw ruleInvalid(at, 'must be true or false');
      return { field, value };
    case 'id':
      if (value !== null && !isUuid(value)) throw ruleInvalid(at, 'must be a UUID or null');
      return { field, value: value === null ? null : (value as string).toLowerCase() };
    case 'text':
      if (field === 'last_name' && value === null) return { field, value };
      return { field, value: templated(value, at, field === 'description' ? LIMITS.text : 100, subject) };
  }
}
