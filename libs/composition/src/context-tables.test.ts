import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import type { ContextManifest } from '@engage/platform';
import { CONTEXTS } from './index';

// docs/architecture.md, "Reading another context's data": a context's tables are private; it
// publishes what others may read as views (security_invoker, so row-level security applies) or as
// an exported application service. This test fails when a context's SQL names a table another
// context's migrations create, or writes into another context's view.

const ROOT = join(__dirname, '..', '..', '..');

// Exceptions that cannot be mended now, each with its reason: a file and the tables it may name.
const ALLOWED: { file: string; tables: string[]; reason: string }[] = [
  {
    file: 'libs/billing/src/limits/migrations/plan-limits.sql.ts',
    tables: ['contacts', 'conversations', 'memberships'],
    // docs/plan-limits.md: statement triggers on the tables whose rows they count (CRM, messaging,
    // identity), so that every writer meets the limit in its own statement.
    reason: 'plan-limit triggers count the rows of other contexts as they are written',
  },
];

const allowed = (file: string, table: string) => ALLOWED.some((entry) => entry.file === file && entry.tables.includes(table));

interface Relation {
  owner: string;
  kind: 'table' | 'view';
  securityInvoker: boolean;
}

// A function (trigger or helper) as its context's migrations last define it: it runs at every write.
interface DefinedFunction {
  owner: string;
  body: string;
}

// Functions named here may read other contexts' tables, with the reason (billing's plan-limit triggers).
const ALLOWED_FUNCTIONS: { owner: string; names: RegExp; tables: string[]; reason: string }[] = [
  { owner: 'billing', names: /^plan_(limit|usage)/, tables: ['contacts', 'conversations', 'memberships'], reason: ALLOWED[0].reason },
];

// What each context's migrations create, read from the SQL they run (they only call query()).
async function relationsOf(contexts: readonly ContextManifest[], functions = new Map<string, DefinedFunction>()): Promise<Map<string, Relation>> {
  const relations = new Map<string, Relation>();
  for (const context of contexts) {
    const statements: string[] = [];
    const recorder = { query: async (sql: string) => void statements.push(sql) };
    for (const Migration of context.migrations) await new Migration().up(recorder as never);
    for (const sql of statements) {
      for (const [, name] of sql.matchAll(/\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:public\.)?(\w+)/gi)) {
        relations.set(name.toLowerCase(), { owner: context.name, kind: 'table', securityInvoker: false });
      }
      const views = /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:MATERIALIZED\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:public\.)?(\w+)([^]*?)\sAS\s/gi;
      for (const [, name, options] of sql.matchAll(views)) {
        relations.set(name.toLowerCase(), { owner: context.name, kind: 'view', securityInvoker: /security_invoker\s*=\s*(true|on)/i.test(options) });
      }
      const bodies = /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?(\w+)[^$]*?\$(\w*)\$([^]*?)\$\2\$/gi;
      for (const [, name, , body] of sql.matchAll(bodies)) functions.set(name.toLowerCase(), { owner: context.name, body });
    }
  }
  return relations;
}

// The context's source files that run SQL at run time: not tests, test helpers or migrations.
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'testing' ? [] : sourceFiles(path);
    if (!entry.endsWith('.ts') || /\.(test|spec)\.ts$/.test(entry)) return [];
    return /implements\s+MigrationInterface/.test(readFileSync(path, 'utf8')) ? [] : [path];
  });
}

// Every string and template literal of a file (template parts joined by a space).
function literalsOf(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node)) found.push([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' '));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Reference {
  file: string;
  verb: string;
  name: string;
}

function referencesIn(sql: string): Omit<Reference, 'file'>[] {
  return [...sql.matchAll(/\b(FROM|JOIN|INTO|UPDATE)\s+(?:ONLY\s+)?(?:public\.)?([a-z_][a-z0-9_]*)\b/gi)].map(([, verb, name]) => ({
    verb: verb.toUpperCase(),
    name: name.toLowerCase(),
  }));
}

// What the context's SQL names of other contexts: private tables, and views it writes to.
function trespasses(context: string, relations: Map<string, Relation>): string[] {
  const dir = join(ROOT, 'libs', context, 'src');
  return sourceFiles(dir).flatMap((path) =>
    literalsOf(path)
      .flatMap((sql) => referencesIn(sql))
      .flatMap(({ verb, name }) => {
        const relation = relations.get(name);
        if (!relation || relation.owner === context) return [];
        if (relation.kind === 'view' && (verb === 'FROM' || verb === 'JOIN')) return [];
        const file = relative(ROOT, path);
        return allowed(file, name) ? [] : [`${file}: ${verb} ${name} (${relation.kind} of ${relation.owner})`];
      }),
  );
}

// What a context's functions (as its migrations leave them) name of other contexts' tables.
function functionTrespasses(context: string, relations: Map<string, Relation>, functions: Map<string, DefinedFunction>): string[] {
  return [...functions]
    .filter(([, fn]) => fn.owner === context)
    .flatMap(([name, fn]) =>
      referencesIn(fn.body).flatMap(({ verb, name: table }) => {
        const relation = relations.get(table);
        if (!relation || relation.owner === context) return [];
        if (relation.kind === 'view' && (verb === 'FROM' || verb === 'JOIN')) return [];
        const excused = ALLOWED_FUNCTIONS.some((entry) => entry.owner === context && entry.names.test(name) && entry.tables.includes(table));
        return excused ? [] : [`function ${name}: ${verb} ${table} (${relation.kind} of ${relation.owner})`];
      }),
    );
}

describe("contexts read other contexts' data only through what they publish", () => {
  let relations: Map<string, Relation>;
  const functions = new Map<string, DefinedFunction>();
  beforeAll(async () => {
    relations = await relationsOf(CONTEXTS, functions);
  });

  it('should find the tables of every context, and every context in its library', () => {
    expect(relations.get('users')).toMatchObject({ owner: 'identity', kind: 'table' });
    expect(relations.get('subscriptions')).toMatchObject({ owner: 'billing', kind: 'table' });
    expect(relations.get('channel_accounts')).toMatchObject({ owner: 'messaging', kind: 'table' });
    expect(relations.get('profiles')).toMatchObject({ owner: 'identity', kind: 'view', securityInvoker: true });
    for (const context of CONTEXTS) expect(existsSync(join(ROOT, 'libs', context.name, 'src', 'index.ts'))).toBe(true);
  });

  it('should see a read of a private table in SQL, and not prose or imports', () => {
    expect(referencesIn('SELECT u.id FROM memberships m JOIN users u ON u.id = m.user_id')).toEqual([
      { verb: 'FROM', name: 'memberships' },
      { verb: 'JOIN', name: 'users' },
    ]);
    expect(referencesIn('INSERT INTO public.contacts (id) VALUES ($1)')).toEqual([{ verb: 'INTO', name: 'contacts' }]);
    expect(referencesIn("import x from '@engage/identity'")).toEqual([]);
  });

  it.each(CONTEXTS.map((context) => context.name))("should keep %s's SQL off other contexts' tables", (context) => {
    expect(trespasses(context, relations)).toEqual([]);
  });

  it.each(CONTEXTS.map((context) => context.name))("should keep %s's functions, as its migrations leave them, off other contexts' tables", (context) => {
    // The last definition counts: onboarding's guard was replaced to read billing's published view.
    expect(functions.get('onboarding_guard_completion')).toMatchObject({ owner: 'onboarding', body: expect.stringContaining('billing_subscription_states') });
    expect(functionTrespasses(context, relations, functions)).toEqual([]);
  });

  it("should see a function's read of another context's table, and its later replacement", () => {
    const seen = new Map<string, DefinedFunction>([['guard', { owner: 'onboarding', body: 'SELECT 1 FROM subscriptions WHERE organization_id = org' }]]);
    expect(functionTrespasses('onboarding', relations, seen)).toEqual(['function guard: FROM subscriptions (table of billing)']);
    seen.set('guard', { owner: 'onboarding', body: 'SELECT 1 FROM billing_subscription_states WHERE subscribed' });
    expect(functionTrespasses('onboarding', relations, seen)).toEqual([]);
  });

  it('should publish every view with the reader’s row-level security (security_invoker)', () => {
    const unsafe = [...relations].filter(([, relation]) => relation.kind === 'view' && !relation.securityInvoker).map(([name]) => name);
    expect(unsafe).toEqual([]);
  });

  it('should allow only exceptions that still exist', () => {
    const stale = ALLOWED.flatMap(({ file, tables }) => {
      const named = existsSync(join(ROOT, file)) ? literalsOf(join(ROOT, file)).flatMap((sql) => referencesIn(sql).map((ref) => ref.name)) : [];
      return tables.filter((table) => !named.includes(table)).map((table) => `${file}: ${table}`);
    });
    expect(stale).toEqual([]);
  });
});
