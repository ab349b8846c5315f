export * from './test-database';
export * from './test-runtime';
export * from './https-receiver';
