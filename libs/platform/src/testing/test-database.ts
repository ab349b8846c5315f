import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../database/embedded-postgres';

// Test database, in the design card's order: TEST_DATABASE_URL when set (a server the tests may
// create databases on); else a PostgreSQL container through testcontainers when a Docker engine
// answers; else a real PostgreSQL started from the embedded binaries for this Jest run. Each run
// gets a fresh database; tests inside it use fresh organizations.
export interface TestCluster {
  adminUrl: string;
  source: TestDatabaseSource;
  embedded?: EmbeddedPostgres;
  container?: { stop(): Promise<unknown> };
  dir?: string;
}

export type TestDatabaseSource = 'url' | 'container' | 'embedded';

export async function chooseTestDatabase(env: NodeJS.ProcessEnv, dockerAnswers: () => Promise<boolean>): Promise<TestDatabaseSource> {
  if (env.TEST_DATABASE_URL) return 'url';
  return (await dockerAnswers()) ? 'container' : 'embedded';
}

// Where testcontainers looks for an engine; without any of them the library (and its probe) is not loaded.
function dockerMayAnswer(env: NodeJS.ProcessEnv): boolean {
  const home = homedir();
  const places = [
    '/var/run/docker.sock',
    join(home, '.docker', 'run', 'docker.sock'),
    join(home, '.docker', 'desktop', 'docker.sock'),
    join(home, '.testcontainers.properties'),
  ];
  if (env.XDG_RUNTIME_DIR) places.push(join(env.XDG_RUNTIME_DIR, 'docker.sock'));
  return Boolean(env.DOCKER_HOST || env.TESTCONTAINERS_HOST_OVERRIDE) || places.some((place) => existsSync(place));
}

export async function dockerAnswers(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!dockerMayAnswer(env)) return false;
  const { getContainerRuntimeClient } = await import('testcontainers');
  return getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
}

// The same major version as the embedded binaries.
const POSTGRES_IMAGE = 'postgres:18';

async function startContainer(): Promise<TestCluster> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const password = randomBytes(12).toString('hex');
  const container = await new GenericContainer(POSTGRES_IMAGE)
    .withEnvironment({ POSTGRES_PASSWORD: password })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const adminUrl = `postgresql://postgres:${password}@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  return { adminUrl, source: 'container', container };
}

export async function startTestCluster(): Promise<TestCluster> {
  const source = await chooseTestDatabase(process.env, dockerAnswers);
  if (source === 'url') return { adminUrl: process.env.TEST_DATABASE_URL!, source };
  if (source === 'container') return startContainer();
  const dir = mkdtempSync(join(tmpdir(), 'engage-test-'));
  chmodSync(dir, 0o755); // mkdtemp makes it 0700; PostgreSQL may run as another user
  const embedded = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), database: 'postgres' });
  return { adminUrl: urlOf(embedded, 'postgres'), source, embedded, dir };
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
  await cluster.container?.stop();
  if (cluster.dir) rmSync(cluster.dir, { recursive: true, force: true });
}
