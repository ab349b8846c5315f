// node bench/data-api-parse.mjs: parse + plan + SQL text of typical /rest/v1 requests, in process,
// no database (target: under 50 µs per request). A microbenchmark, not a test: run it on a quiet
// machine. Builds dist/out first when stale.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
const require = createRequire(import.meta.url);
const { defineRegistry, findTable, parseReadRequest, buildReadSql } = require(join(root, 'dist/out/libs/data-api/src/index.js'));
const { CRM_TABLES } = require(join(root, 'dist/out/libs/crm/src/infrastructure/exposed-tables.js'));
const { IDENTITY_TABLES } = require(join(root, 'dist/out/libs/identity/src/infrastructure/exposed-tables.js'));

const registry = defineRegistry([...Object.values(IDENTITY_TABLES), ...Object.values(CRM_TABLES)]);
const requests = [
  [
    'contacts: two filters, order, limit 50',
    'contacts',
    'select=id,first_name,last_name,phones,tags&tags=cs.%7Bvip%7D&first_name=ilike.*ali*&order=created_at.desc&limit=50',
    { prefer: 'count=exact' },
  ],
  [
    'deals embedding contacts and owner profiles',
    'deals',
    'select=*,contacts(first_name,last_name,companies(name)),owner:profiles!deals_owner_id_fkey(first_name,last_name)&stage=eq.LEAD&order=created_at.desc&limit=50',
    {},
  ],
  [
    'companies with a one-to-many embed and an or= tree',
    'companies',
    'select=id,name,contacts(first_name)&contacts.order=first_name&contacts.limit=5&or=(industry.eq.tech,and(country.eq.EG,annual_revenue.gt.1000))',
    {},
  ],
];

const ITERATIONS = Number(process.env.ITERATIONS ?? 50_000);
for (const [title, table, query, headers] of requests) {
  const run = () => buildReadSql(parseReadRequest(findTable(registry, table), { method: 'GET', table, query, headers }, registry));
  for (let i = 0; i < 5_000; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) run();
  const micros = Number(process.hrtime.bigint() - start) / 1000 / ITERATIONS;
  console.log(`${micros.toFixed(1).padStart(6)} µs  ${title}`);
}
