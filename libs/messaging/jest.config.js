// npm test sets ENGAGE_SKIP_EMAIL_TESTS (with the reason, printed once) where the machine cannot run
// Dovecot; the email channel's suites, which need it, are then left out (scripts/test-peers.mjs).
const emailSuites = ['email-channel', 'email-tls', 'email-server-variants', 'email-inbound'].map((name) => `/${name}\\.db\\.test\\.ts$`);

module.exports = {
  displayName: 'messaging',
  preset: '../../jest.preset.js',
  globalSetup: '<rootDir>/../platform/src/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../platform/src/testing/jest-global-teardown.ts',
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.ENGAGE_SKIP_EMAIL_TESTS ? emailSuites : [])],
};
