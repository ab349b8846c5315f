export * from './reengagement-test-app';
