export * from './test-tenant';
