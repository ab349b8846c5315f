export * from './loopback-providers';
export * from './streaming-peer';
