export * from './reengagement-test-app';
export * from './capture-output';
