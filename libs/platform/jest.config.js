module.exports = {
  displayName: 'platform',
  preset: '../../jest.preset.js',
  globalSetup: '<rootDir>/src/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/src/testing/jest-global-teardown.ts',
};
