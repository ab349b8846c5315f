export * from './analytics-test-app';
