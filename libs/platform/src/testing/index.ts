export * from './test-database';
export * from './test-runtime';
export * from './https-receiver';
export * from './s3-server';
export * from './database-proxy';
export * from './test-dns';
