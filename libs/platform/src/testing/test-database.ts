import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../database/embedded-postgres';

// Test database: TEST_DATABASE_URL when set (a server the tests may create databases on), otherwise
// a real PostgreSQL started from the embedded binaries for this Jest run. Each run gets a fresh
// database; tests inside it use fresh organizations.
export interface TestCluster {
  adminUrl: string;
  embedded?: EmbeddedPostgres;
  dir?: string;
}

export async function startTestCluster(): Promise<TestCluster> {
  if (process.env.TEST_DATABASE_URL) return { adminUrl: process.env.TEST_DATABASE_URL };
  const dir = mkdtempSync(join(tmpdir(), 'engage-test-'));
  chmodSync(dir, 0o755); // mkdtemp makes it 0700; PostgreSQL may run as another user
  const embedded = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), database: 'postgres' });
  return { adminUrl: urlOf(embedded, 'postgres'), embedded, dir };
}

export function urlOf(embedded: Pick<EmbeddedPostgres, 'host' | 'port' | 'user'>, database: string): string {
  return `postgresql://${embedded.user}@localhost:${embedded.port}/${database}?host=${encodeURIComponent(embedded.host)}`;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function createTestDatabase(adminUrl: string): Promise<string> {
  const name = `engage_test_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

export async function dropTestDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function stopTestCluster(cluster: TestCluster): Promise<void> {
  await cluster.embedded?.stop();
  if (cluster.dir) rmSync(cluster.dir, { recursive: true, force: true });
}
