module.exports = {
  displayName: 'api',
  preset: '../../jest.preset.js',
  globalSetup: '<rootDir>/../../libs/platform/src/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../../libs/platform/src/testing/jest-global-teardown.ts',
};
