import { startTestCluster, type TestCluster } from './test-database';

// Jest runs this once per project run; workers inherit the environment variables set here.
export default async function globalSetup(): Promise<void> {
  const cluster = await startTestCluster();
  (globalThis as { __ENGAGE_TEST_CLUSTER__?: TestCluster }).__ENGAGE_TEST_CLUSTER__ = cluster;
  process.env.ENGAGE_TEST_ADMIN_URL = cluster.adminUrl;
}
