import { isUuid } from '@engage/shared-kernel';
import { LIMITS } from '../../domain/catalogue';
import { isPlainObject, onlyKeys, quoted } from '../../domain/rule-error';
import { asBotError, botInvalid } from './bot-error';
import { BOT_LIMITS, type BotNode, type Definition, NODE_ID, parseNode } from './nodes';

// A bot flow as a writer gives it (/rest/v1/bot_flows): checked whole on every write, a PATCH
// merged into the stored flow first.
export const TRIGGER_TYPES = ['new_conversation', 'keyword', 'any_message'] as const;
export const KEYWORD_MATCHES = ['equals', 'contains', 'starts_with'] as const;
export interface Trigger {
  type: (typeof TRIGGER_TYPES)[number];
  keywords?: string[];
  match?: (typeof KEYWORD_MATCHES)[number];
}
export interface Settings {
  expire_minutes: number;
  finish_keywords: string[];
  unknown_reply: string | null;
}
export interface BotFlowFields {
  name: string;
  channel_account_ids: string[];
  trigger: Trigger;
  definition: Definition;
  is_active: boolean;
  settings: Settings;
}

export const WRITABLE_FLOW_FIELDS = ['name', 'channel_account_ids', 'trigger', 'definition', 'is_active', 'settings'] as const;
const IGNORED = ['id', 'organization_id', 'published_version', 'published_at', 'created_by', 'created_at', 'updated_at'];
export const DEFAULT_EXPIRE_MINUTES = 240;
const EXPIRE = { min: 1, max: 43_200 };
const KEYWORDS = { count: 20, length: 100 };
const CHANNEL_ACCOUNTS = 50;

export function parseBotFlow(input: Record<string, unknown>, current?: BotFlowFields): BotFlowFields {
  return asBotError(() => {
    const unknown = Object.keys(input).find((key) => !(WRITABLE_FLOW_FIELDS as readonly string[]).includes(key) && !IGNORED.includes(key));
    if (unknown !== undefined) throw botInvalid(unknown.slice(0, 64), `unknown field; writable: ${WRITABLE_FLOW_FIELDS.join(', ')}`);
    const pick = (key: (typeof WRITABLE_FLOW_FIELDS)[number]): unknown => (key in input && input[key] !== undefined ? input[key] : current?.[key]);
    const name = pick('name');
    if (typeof name !== 'string' || name.trim() === '') throw botInvalid('name', 'is required: a non-empty string');
    if (name.trim().length > LIMITS.name) throw botInvalid('name', `must be at most ${LIMITS.name} characters`);
    const isActive = pick('is_active') ?? true;
    if (typeof isActive !== 'boolean') throw botInvalid('is_active', 'must be true or false');
    return {
      name: name.trim(),
      channel_account_ids: channelAccounts(pick('channel_account_ids')),
      trigger: trigger(pick('trigger')),
      definition: definition(pick('definition')),
      is_active: isActive,
      settings: settings(pick('settings')),
    };
  });
}

function channelAccounts(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw botInvalid('channel_account_ids', 'is required: a non-empty array of channel account ids');
  if (value.length > CHANNEL_ACCOUNTS) throw botInvalid('channel_account_ids', `may hold at most ${CHANNEL_ACCOUNTS} ids`);
  const ids = value.map((id, index) => {
    if (!isUuid(id)) throw botInvalid(`channel_account_ids[${index}]`, 'must be a UUID');
    return id.toLowerCase();
  });
  return [...new Set(ids)];
}

function keywordList(value: unknown, path: string, required: boolean): string[] {
  if (value === undefined || value === null) {
    if (required) throw botInvalid(path, `is required: 1 to ${KEYWORDS.count} keywords`);
    return [];
  }
  if (!Array.isArray(value) || (required && value.length === 0) || value.length > KEYWORDS.count) {
    throw botInvalid(path, `must be an array of ${required ? 1 : 0} to ${KEYWORDS.count} keywords`);
  }
  return value.map((item, index) => {
    if (typeof item !== 'string' || item.trim() === '' || item.length > KEYWORDS.length) {
      throw botInvalid(`${path}[${index}]`, `must be a keyword of 1 to ${KEYWORDS.length} characters`);
    }
    return item.trim();
  });
}

function trigger(value: unknown): Trigger {
  if (!isPlainObject(value)) throw botInvalid('trigger', `is required: an object {"type": ${TRIGGER_TYPES.map((t) => `"${t}"`).join(' | ')}}`);
  onlyKeys(value, ['type', 'keywords', 'match'], 'trigger');
  const type = value.type;
  if (typeof type !== 'string' || !(TRIGGER_TYPES as readonly string[]).includes(type)) {
    throw botInvalid('trigger.type', `${quoted(type)} is not a trigger; one of ${TRIGGER_TYPES.join(', ')}`);
  }
  if (type !== 'keyword') {
    if (value.keywords !== undefined && value.keywords !== null) throw botInvalid('trigger.keywords', 'only a keyword trigger takes keywords');
    if (value.match !== undefined && value.match !== null) throw botInvalid('trigger.match', 'only a keyword trigger takes match');
    return { type: type as Trigger['type'] };
  }
  const match = value.match ?? 'equals';
  if (typeof match !== 'string' || !(KEYWORD_MATCHES as readonly string[]).includes(match)) {
    throw botInvalid('trigger.match', `${quoted(match)} is not a match; one of ${KEYWORD_MATCHES.join(', ')}`);
  }
  return { type: 'keyword', keywords: keywordList(value.keywords, 'trigger.keywords', true), match: match as Trigger['match'] };
}

function definition(value: unknown): Definition {
  if (!isPlainObject(value)) throw botInvalid('definition', 'is required: an object {"start": "<node id>", "nodes": [...]}');
  onlyKeys(value, ['start', 'nodes'], 'definition');
  const start = value.start;
  if (typeof start !== 'string' || !NODE_ID.test(start)) throw botInvalid('definition.start', 'is required: the id of the first node');
  const nodes = value.nodes;
  if (!Array.isArray(nodes)) throw botInvalid('definition.nodes', 'must be an array of nodes');
  if (nodes.length > BOT_LIMITS.nodes) throw botInvalid('definition.nodes', `a flow has at most ${BOT_LIMITS.nodes} nodes`);
  const seen = new Set<string>();
  const parsed: BotNode[] = nodes.map((node: unknown, index) => {
    const path = `definition.nodes[${index}]`;
    const parsedNode = parseNode(node, path);
    if (seen.has(parsedNode.id)) throw botInvalid(`${path}.id`, `${quoted(parsedNode.id)} is the id of an earlier node`);
    seen.add(parsedNode.id);
    return parsedNode;
  });
  return { start, nodes: parsed };
}

function settings(value: unknown): Settings {
  const given = value ?? {};
  if (!isPlainObject(given)) throw botInvalid('settings', 'must be an object');
  onlyKeys(given, ['expire_minutes', 'finish_keywords', 'unknown_reply'], 'settings');
  const expire = given.expire_minutes ?? DEFAULT_EXPIRE_MINUTES;
  if (typeof expire !== 'number' || !Number.isInteger(expire) || expire < EXPIRE.min || expire > EXPIRE.max) {
    throw botInvalid('settings.expire_minutes', `must be a whole number from ${EXPIRE.min} to ${EXPIRE.max}`);
  }
  const reply = given.unknown_reply ?? null;
  if (reply !== null && (typeof reply !== 'string' || reply.trim() === '' || reply.length > LIMITS.text)) {
    throw botInvalid('settings.unknown_reply', `must be a text of 1 to ${LIMITS.text} characters, or null`);
  }
  return { expire_minutes: expire, finish_keywords: keywordList(given.finish_keywords, 'settings.finish_keywords', false), unknown_reply: reply };
}
