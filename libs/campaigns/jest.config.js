module.exports = {
  displayName: 'campaigns',
  preset: '../../jest.preset.js',
  globalSetup: '<rootDir>/../platform/src/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/../platform/src/testing/jest-global-teardown.ts',
};
