import { pgrstError } from '../errors';
import { findTable, type Registry, type TableDefinition } from '../registry';
import { parseFilterParam } from './filter.parser';
import { header, parseAccept } from './headers.parser';
import { parseLogicParam } from './logic.parser';
import { parseOrder } from './order.parser';
import { parsePreferences } from './prefer.parser';
import { type Embed, type Filter, isEmbed, type ReadPlan, type ReadRequest } from './plan';
import { parseQueryString } from './query-string';
import { parsePage } from './range.parser';
import { parseSelect } from './select.parser';

const SINGLE_VALUED = new Set(['select', 'order', 'limit', 'offset']);
// Write-only parameters that a read accepts and ignores.
const IGNORED = new Set(['columns', 'on_conflict']);
const LOGIC = /^(not\.)?(and|or)$/;

// The whole read request, validated against the registry: the plan holds no unchecked identifier.
// Without a registry, embedding is refused (PGRST127).
export function parseReadRequest(table: TableDefinition, request: ReadRequest, registry?: Registry): ReadPlan {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') throw pgrstError('PGRST117', 405, `Unsupported HTTP method: ${request.method}`);
  const single = new Map<string, string>();
  const filterParams: { key: string; value: string; hadPlus: boolean }[] = [];
  for (const param of parseQueryString(request.query)) {
    if (SINGLE_VALUED.has(param.key)) {
      // Repeated keys: the last one wins.
      single.set(param.key, param.value);
      continue;
    }
    if (IGNORED.has(param.key)) continue;
    filterParams.push(param);
  }
  // The select comes first: embedded filters (`rel.col=...`) need the embeds it declares.
  const select = parseSelect(table, single.get('select'), registry);
  const embeds = select.filter(isEmbed).map((item) => item.embed);
  const filters: Filter[] = [];
  for (const { key, value, hadPlus } of filterParams) {
    const presence = embedPresence(key, value, embeds);
    if (presence) {
      presence.embed.presence = presence.value;
      continue;
    }
    const embedded = splitEmbedKey(key, embeds);
    if (embedded) {
      embedded.embed.filters.push(parseParam(findTable(registry as Registry, embedded.embed.table), embedded.rest, value, hadPlus, embedded.embed.name));
      continue;
    }
    filters.push(parseParam(table, key, value, hadPlus));
  }
  const page = parsePage(single.get('limit'), single.get('offset'), method === 'GET' ? header(request.headers, 'range') : undefined);
  return {
    table: table.name,
    method,
    select,
    filters,
    order: parseOrder(table, single.get('order')),
    offset: page.offset,
    limit: page.limit,
    count: parsePreferences(header(request.headers, 'prefer')).count,
    media: parseAccept(header(request.headers, 'accept')),
    ids: request.ids,
  };
}

function parseParam(table: TableDefinition, key: string, value: string, hadPlus: boolean, embed?: string): Filter {
  const logic = LOGIC.exec(key);
  if (logic) return parseLogicParam(table, logic[2] as 'and' | 'or', !!logic[1], value, hadPlus);
  if (embed && EMBED_SHAPING.has(key)) {
    throw pgrstError('PGRST127', 400, 'Feature not implemented', `'${embed}.${key}' has no meaning for a to-one embed and is not supported`);
  }
  return parseFilterParam(table, key, value, hadPlus);
}

const PRESENCE: Record<string, 'null' | 'not_null'> = { 'is.null': 'null', 'not.is.null': 'not_null', 'is.not_null': 'not_null' };

// `rel=is.null` / `rel=not.is.null` test the embed itself (after its own filters).
function embedPresence(key: string, value: string, embeds: Embed[]): { embed: Embed; value: 'null' | 'not_null' } | undefined {
  const presence = PRESENCE[value.toLowerCase()];
  const embed = presence && findEmbed(key, embeds);
  return embed ? { embed, value: presence } : undefined;
}

// An alias wins over a relation name; an aliased embed still answers to its relation name.
const findEmbed = (name: string, embeds: Embed[]): Embed | undefined =>
  embeds.find((candidate) => candidate.alias === name) ?? embeds.find((candidate) => candidate.name === name && !candidate.alias) ?? embeds.find((candidate) => candidate.name === name);

const EMBED_SHAPING = new Set(['order', 'limit', 'offset']);

// `rel.col` or `alias.col` names an embed of the select; a deeper path would be a nested embed.
function splitEmbedKey(key: string, embeds: Embed[]): { embed: Embed; rest: string } | undefined {
  if (key.startsWith('"') || !key.includes('.')) return undefined;
  const dot = key.indexOf('.');
  const head = key.slice(0, dot);
  const embed = findEmbed(head, embeds);
  if (!embed) return undefined;
  return { embed, rest: key.slice(dot + 1) };
}
