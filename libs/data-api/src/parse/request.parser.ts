import { pgrstError } from '../errors';
import { findTable, type Registry, type TableDefinition } from '../registry';
import { parseFilterParam } from './filter.parser';
import { checkProfile, header, parseAccept, stripsNulls } from './headers.parser';
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
  checkProfile(request.headers, 'accept-profile');
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
    const path = embedPath(key, embeds);
    if (!path) {
      filters.push(parseParam(table, key, value, hadPlus, embeds));
      continue;
    }
    const { embed, rest } = path;
    const presence = PRESENCE[value.toLowerCase()];
    const child = presence && rest === undefined ? embed : undefined;
    if (child) {
      child.presence = presence;
      continue;
    }
    if (rest === undefined) {
      filters.push(parseParam(table, key, value, hadPlus));
      continue;
    }
    if (EMBED_SHAPING.has(rest)) {
      shapeEmbed(registry as Registry, embed, rest, value);
      continue;
    }
    embed.filters.push(parseParam(findTable(registry as Registry, embed.table), rest, value, hadPlus, embedsOf(embed)));
  }
  const page = parsePage(single.get('limit'), single.get('offset'), method === 'GET' ? header(request.headers, 'range') : undefined);
  if (request.maxRows !== undefined) capRows(embeds, request.maxRows);
  return {
    table: table.name,
    method,
    select,
    filters,
    order: parseOrder(table, single.get('order'), embeds, registry),
    offset: page.offset,
    limit: request.maxRows === undefined ? page.limit : Math.min(page.limit ?? request.maxRows, request.maxRows),
    count: parsePreferences(header(request.headers, 'prefer')).count,
    media: parseAccept(header(request.headers, 'accept')),
    stripNulls: stripsNulls(header(request.headers, 'accept')) || undefined,
    ids: request.ids,
    idType: request.ids ? table.columns.id : undefined,
  };
}

function parseParam(table: TableDefinition, key: string, value: string, hadPlus: boolean, embeds: Embed[] = []): Filter {
  const logic = LOGIC.exec(key);
  if (logic) return parseLogicParam(table, logic[2] as 'and' | 'or', !!logic[1], value, hadPlus, embeds);
  return parseFilterParam(table, key, value, hadPlus);
}

const PRESENCE: Record<string, 'null' | 'not_null'> = { 'is.null': 'null', 'not.is.null': 'not_null', 'is.not_null': 'not_null' };

// An alias wins over a relation name; an aliased embed still answers to its relation name.
const findEmbed = (name: string, embeds: Embed[]): Embed | undefined =>
  embeds.find((candidate) => candidate.alias === name) ??
  embeds.find((candidate) => candidate.name === name && !candidate.alias) ??
  embeds.find((candidate) => candidate.name === name);

const EMBED_SHAPING = new Set(['order', 'limit', 'offset']);
const embedsOf = (embed: Embed): Embed[] => embed.select.filter(isEmbed).map((item) => item.embed);

// `rel.col`, `alias.col`, `rel.sub.col` (nested), or `rel` / `rel.sub` alone (for `=is.null`): the
// deepest embed the key names and what follows it.
function embedPath(key: string, embeds: Embed[]): { embed: Embed; rest?: string } | undefined {
  if (key.startsWith('"')) return undefined;
  const segments = key.split('.');
  let embed = findEmbed(segments[0], embeds);
  if (!embed) return undefined;
  let i = 1;
  for (; i < segments.length; i++) {
    const child = findEmbed(segments[i], embedsOf(embed));
    if (!child) break;
    embed = child;
  }
  return { embed, rest: i < segments.length ? segments.slice(i).join('.') : undefined };
}

// `rel.order=`, `rel.limit=`, `rel.offset=` shape a to-many embed's array.
function shapeEmbed(registry: Registry, embed: Embed, what: string, value: string): void {
  if (embed.relation.kind === 'one') {
    throw pgrstError('PGRST127', 400, 'Feature not implemented', `'${embed.name}.${what}' has no meaning for a to-one embed and is not supported`);
  }
  if (what === 'order') {
    embed.order = parseOrder(findTable(registry, embed.table), value);
    return;
  }
  if (!/^\d{1,9}$/.test(value)) throw pgrstError('PGRST100', 400, `"failed to parse ${what} (${value})" (line 1, column 1)`, 'a non-negative integer');
  embed[what as 'limit' | 'offset'] = Number(value);
}

// PostgREST's db-max-rows, here also for every embedded array: a larger `rel.limit` is cut.
function capRows(embeds: Embed[], maxRows: number): void {
  for (const embed of embeds) {
    if (embed.relation.kind !== 'one' && !embed.countOnly) embed.limit = Math.min(embed.limit ?? maxRows, maxRows);
    capRows(embedsOf(embed), maxRows);
  }
}
