// CRM scenarios of `npm run bench`: the kanban board over 50,000 deals, duplicate-company
// detection over 20,000 companies (both against a bare Fastify + pg route running the same SQL and
// domain code from our build), and CSV imports of 100,000 contacts and of 20,000 companies (rows/s
// and the server's peak memory; no baseline).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { bareTenant } from './bare-tenant.mjs';

const bearer = (s) => ({ authorization: `Bearer ${s.accessToken}` });

export const crmScenarios = [
  {
    name: 'GET deals board, 50,000 deals',
    ours: { path: '/functions/v1/deals/board', headers: bearer },
    bare: { path: '/crm/board', headers: bearer },
  },
  {
    name: 'POST find-duplicate-companies, 20,000',
    ours: { path: '/functions/v1/find-duplicate-companies', method: 'POST', body: () => ({}), headers: bearer },
    bare: { path: '/crm/duplicates', method: 'POST', body: () => ({}), headers: bearer },
  },
];

// 50,000 deals spread over the default pipeline's stages, and 20,000 companies of which about one
// in ten shares a website, a phone or a near-identical name with another.
export async function seedCrm(databaseUrl, organizationId, baseUrl, state) {
  // The default pipeline is created on first use.
  await fetch(`${baseUrl}/functions/v1/deals/board`, { headers: bearer(state) });
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO deals (organization_id, title, pipeline_id, stage_id, stage, value, probability, position)
       SELECT $1, 'Deal ' || n, s.pipeline_id, s.id, s.key, (n % 1000) * 10, coalesce(s.default_probability, 0), n
       FROM generate_series(1, $2) AS n
       JOIN LATERAL (SELECT st.* FROM pipeline_stages st JOIN pipelines p ON p.id = st.pipeline_id
                     WHERE p.organization_id = $1 AND p.is_default AND st.position = n % 6) s ON true`,
      [organizationId, 50_000],
    );
    await client.query(
      `INSERT INTO companies (organization_id, name, website, phones, emails)
       SELECT $1,
              CASE WHEN n % 10 = 0 THEN 'Company ' || (n - 1) || ' Ltd' ELSE 'Company ' || n END,
              CASE WHEN n % 25 = 0 THEN 'https://www.company' || (n - 2) || '.example/about' ELSE 'company' || n || '.example' END,
              ARRAY['+2012' || lpad(CASE WHEN n % 40 = 0 THEN n - 3 ELSE n END::text, 8, '0')],
              ARRAY['info@company' || n || '.example']
       FROM generate_series(1, $2) AS n`,
      [organizationId, 20_000],
    );
    await client.query('VACUUM (ANALYZE) deals, companies');
  } finally {
    await client.end();
  }
}

// Routes of bench/bare-server.mjs doing the same work: JWT, session check, the same SQL in a
// tenant transaction, and for duplicates the same key refresh and grouping code.
export function registerCrmBareRoutes(app, { pool, key, root, sessionCheck, jwtVerify }) {
  const require = createRequire(import.meta.url);
  const dealSql = require(join(root, 'dist/out/libs/crm/src/infrastructure/deal.sql.js'));
  const companySql = require(join(root, 'dist/out/libs/crm/src/infrastructure/company.sql.js'));
  const { duplicateKeys, groupsFromSharedKeys } = require(join(root, 'dist/out/libs/crm/src/domain/company-duplicates.js'));

  const inTenant = bareTenant({ pool, key, sessionCheck, jwtVerify });

  app.get('/crm/board', (request, reply) =>
    inTenant(request, reply, async (client) => {
      const {
        rows: [pipeline],
      } = await client.query(dealSql.DEFAULT_PIPELINE);
      const { rows: stages } = await client.query(dealSql.BOARD, [pipeline.id, 100]);
      return { pipeline_id: pipeline.id, stages };
    }),
  );

  app.post('/crm/duplicates', (request, reply) =>
    inTenant(request, reply, async (client) => {
      const { rows: stale } = await client.query(companySql.STALE_DUPLICATE_KEYS);
      if (stale.length > 0)
        await client.query(companySql.SAVE_DUPLICATE_KEYS, [JSON.stringify(stale.map((c) => ({ id: c.id, version: c.version, keys: duplicateKeys(c) })))]);
      const { rows: shared } = await client.query(companySql.SHARED_DUPLICATE_KEYS);
      const names = new Map(shared.flatMap((row) => row.ids.map((id, i) => [id, row.names[i]])));
      return {
        groups: groupsFromSharedKeys(shared.map((row) => [row.key, row.ids])).map((group) => ({
          ...group,
          companies: group.company_ids.map((id) => ({ id, name: names.get(id) })),
        })),
      };
    }),
  );
}

// The server's resident memory in MiB (Linux), or null elsewhere.
export function residentMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

// Samples a process's resident memory every 100 ms until stop() is called, which answers the peak.
export function sampleResident(pid) {
  const before = residentMiB(pid);
  let peak = before;
  const sampler = setInterval(() => {
    const now = residentMiB(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, 100);
  return { before, stop: () => (clearInterval(sampler), peak) };
}

// Streams a generated CSV of `rows` contacts to POST /functions/v1/contacts/import (one in 50 rows
// repeats an earlier phone in another written form, one in 200 has a bad phone) while sampling the
// server's memory every 100 ms.
export async function measureContactImport(baseUrl, state, serverPid, rows = 100_000) {
  const phone = (n) => `+2011${String(n).padStart(8, '0')}`;
  const row = (n) => {
    const cell = n % 200 === 0 ? '12345' : n % 50 === 0 ? `0020 11 ${String(n - 1).padStart(8, '0')}` : phone(n);
    return `Import ${n},Bench,${cell},import${n}@example.com,bench;import\n`;
  };
  return measureImport(baseUrl, state, serverPid, { entity: 'contacts', header: 'first_name,last_name,phones,emails,tags\n', row, rows });
}

// Streams a generated CSV of `rows` companies to POST /functions/v1/companies/import into the
// organization seeded with 20,000 companies: one in ten rows matches a seeded company by phone,
// one in ten by name, one in 200 has a bad phone, the others are new.
export async function measureCompanyImport(baseUrl, state, serverPid, rows = 20_000) {
  const pad = (n) => String(n).padStart(8, '0');
  const row = (n) => {
    if (n % 200 === 7) return `Bad ${n},12345,,\n`;
    if (n % 10 === 0) return `Company ${n} Renamed,+2012${pad(n)},,Imported\n`;
    if (n % 10 === 5) return `company ${n},,sales@company${n}.example,Imported\n`;
    return `Imported Co ${n},+2010${pad(n)},info@imported${n}.example,Imported\n`;
  };
  return measureImport(baseUrl, state, serverPid, { entity: 'companies', header: 'name,phones,emails,industry\n', row, rows });
}

async function measureImport(baseUrl, state, serverPid, { entity, header, row, rows }) {
  async function* csv() {
    yield header;
    let chunk = '';
    for (let n = 1; n <= rows; n++) {
      chunk += row(n);
      if (n % 1000 === 0) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  const memory = sampleResident(serverPid);
  const started = process.hrtime.bigint();
  try {
    const response = await fetch(`${baseUrl}/functions/v1/${entity}/import`, {
      method: 'POST',
      headers: { ...bearer(state), 'content-type': 'text/csv' },
      body: Readable.toWeb(Readable.from(csv())),
      duplex: 'half',
    });
    const job = await response.json();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (response.status !== 201) throw new Error(`import answered ${response.status}: ${JSON.stringify(job)}`);
    return {
      scenario: `CSV import of ${rows.toLocaleString('en')} ${entity}`,
      rows,
      seconds: Number(seconds.toFixed(1)),
      rows_per_second: Math.round(rows / seconds),
      server_rss_before_mib: memory.before,
      server_rss_peak_mib: memory.stop(),
      job: { processed: job.processed, created: job.created, updated: job.updated, failed: job.failed },
    };
  } finally {
    memory.stop();
  }
}
