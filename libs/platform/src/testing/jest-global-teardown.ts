import { stopTestCluster, type TestCluster } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const cluster = (globalThis as { __ENGAGE_TEST_CLUSTER__?: TestCluster }).__ENGAGE_TEST_CLUSTER__;
  if (!cluster) return;
  await stopTestCluster(cluster);
}
