import { dropTestDatabase, stopTestCluster, type TestCluster } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const cluster = (globalThis as { __ENGAGE_TEST_CLUSTER__?: TestCluster }).__ENGAGE_TEST_CLUSTER__;
  if (!cluster) return;
  if (process.env.ENGAGE_TEST_DATABASE_URL) await dropTestDatabase(cluster.adminUrl, process.env.ENGAGE_TEST_DATABASE_URL).catch(() => undefined);
  await stopTestCluster(cluster);
}
