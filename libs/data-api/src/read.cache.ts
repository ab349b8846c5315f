import type { ReadLimits } from './limits';
import type { ReadPlan, ReadRequest } from './parse/plan';
import type { Registry } from './registry';
import type { Statement } from './sql/read.sql';

// A read's plan and its statement, kept for the next request that asks the same: nothing in them
// belongs to an organization (see `readKey` and executeRead), so any tenant may reuse them.
export interface PlannedRead {
  plan: ReadPlan;
  statement: Statement;
  // Sent as a named statement: parsed once per pooled connection (NamedTexts).
  named: boolean;
}

// The headers the parser reads (header() in one pass: names compared lower-cased, the first given
// one wins, repeated values comma-joined).
const SHAPING_HEADERS = ['accept', 'prefer', 'range', 'accept-profile'];

// What shapes a read besides the registry: method, table, raw query string, the headers the parser
// reads and the limits. Internal reads of named rows (`ids`, writes' representations) are not kept.
export function readKey(request: ReadRequest, limits: ReadLimits): string | undefined {
  if (request.ids) return undefined;
  const method = request.method.toUpperCase();
  const found: (string | undefined)[] = [undefined, undefined, undefined, undefined];
  for (const [name, value] of Object.entries(request.headers)) {
    const index = SHAPING_HEADERS.indexOf(name.toLowerCase());
    if (index < 0 || value === undefined || found[index] !== undefined) continue;
    found[index] = Array.isArray(value) ? value.join(', ') : value;
  }
  // Range only shapes a GET.
  if (method !== 'GET') found[2] = undefined;
  // JSON keeps an absent header apart from an empty one, and a table name from the query after it.
  return JSON.stringify([method, request.table, request.query, ...found, limits.maxRows, limits.maxResponseBytes]);
}

// Bounded, least recently used first out. One map per registry object: registryFor gives each role
// its own (restricted columns taken out), so a role never reuses a plan made for another.
export class ReadCache {
  private readonly byRegistry = new WeakMap<Registry, Map<string, PlannedRead>>();

  constructor(
    private readonly maxEntries = 256,
    // SQL longer than this (a select of hundreds of items) is built again each time rather than kept.
    private readonly maxTextLength = 32_768,
  ) {}

  get(registry: Registry, key: string): PlannedRead | undefined {
    const entries = this.byRegistry.get(registry);
    const found = entries?.get(key);
    if (!entries || !found) return undefined;
    entries.delete(key);
    entries.set(key, found);
    return found;
  }

  set(registry: Registry, key: string, read: PlannedRead): void {
    if (read.statement.text.length > this.maxTextLength || key.length > this.maxTextLength) return;
    let entries = this.byRegistry.get(registry);
    if (!entries) this.byRegistry.set(registry, (entries = new Map()));
    entries.set(key, read);
    if (entries.size > this.maxEntries) entries.delete(entries.keys().next().value as string);
  }

  size(registry: Registry): number {
    return this.byRegistry.get(registry)?.size ?? 0;
  }
}

// Which statement texts go named. PostgreSQL keeps a named statement on every connection that ran
// it for the connection's life, and nothing here can forget one, so only the first `limit` distinct
// texts are named (the shapes a process serves are few; a client making up new ones gets unnamed
// statements, which are correct, only parsed and planned each time).
export class NamedTexts {
  private readonly texts = new Set<string>();

  constructor(private readonly limit = 128) {}

  admit(text: string): boolean {
    if (this.texts.has(text)) return true;
    if (this.texts.size >= this.limit) return false;
    this.texts.add(text);
    return true;
  }
}
