export const PLATFORM_RUNTIME = Symbol('PLATFORM_RUNTIME');
export const PLATFORM_LOG = Symbol('PLATFORM_LOG');
export const CONFIG = Symbol('CONFIG');
