import { pgrstError } from '../errors';
import type { TableDefinition } from '../registry';
import { parseFilterParam } from './filter.parser';
import { header, parseAccept, parseCount } from './headers.parser';
import { parseLogicParam } from './logic.parser';
import { parseOrder } from './order.parser';
import type { Filter, ReadPlan, ReadRequest } from './plan';
import { parseQueryString } from './query-string';
import { parsePage } from './range.parser';
import { parseSelect } from './select.parser';

const SINGLE_VALUED = new Set(['select', 'order', 'limit', 'offset']);
// Write-only parameters that a read accepts and ignores.
const IGNORED = new Set(['columns', 'on_conflict']);
const LOGIC = /^(not\.)?(and|or)$/;

// The whole read request, validated against the registry: the plan holds no unchecked identifier.
export function parseReadRequest(table: TableDefinition, request: ReadRequest): ReadPlan {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') throw pgrstError('PGRST117', 405, `Unsupported HTTP method: ${request.method}`);
  const single = new Map<string, string>();
  const filters: Filter[] = [];
  for (const { key, value, hadPlus } of parseQueryString(request.query)) {
    if (SINGLE_VALUED.has(key)) {
      // Repeated keys: the last one wins.
      single.set(key, value);
      continue;
    }
    if (IGNORED.has(key)) continue;
    const logic = LOGIC.exec(key);
    if (logic) filters.push(parseLogicParam(table, logic[2] as 'and' | 'or', !!logic[1], value, hadPlus));
    else filters.push(parseFilterParam(table, key, value, hadPlus));
  }
  const page = parsePage(single.get('limit'), single.get('offset'), method === 'GET' ? header(request.headers, 'range') : undefined);
  return {
    table: table.name,
    method,
    select: parseSelect(table, single.get('select')),
    filters,
    order: parseOrder(table, single.get('order')),
    offset: page.offset,
    limit: page.limit,
    count: parseCount(header(request.headers, 'prefer')),
    media: parseAccept(header(request.headers, 'accept')),
  };
}
