export * from './loopback-providers';
