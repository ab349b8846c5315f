export * from './aggregate-root';
export * from './clock';
export * from './domain-error';
export * from './domain-event';
export * from './event-bus.port';
export * from './group-by';
export * from './ids';
export * from './request-context';
