import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// A route whose handler receives the JSON body as the exact bytes sent (a Buffer), unparsed, within
// its own size limit: for signatures computed over the raw body, checked before anything is parsed.
export interface RawBodyOptions {
  limitBytes: number;
}

const KEY = 'engageRawBody';

export const RawBody = (options: RawBodyOptions): MethodDecorator => RouteConfig({ [KEY]: options });

export function isRawBodyRoute(request: FastifyRequest): boolean {
  return Boolean((request.routeOptions?.config as unknown as Record<string, unknown> | undefined)?.[KEY]);
}

// Routes are added after this runs (Nest registers them at init): each raw-body route gets its limit
// as Fastify's own bodyLimit, so a larger body is refused while it arrives (413).
export function installRawBodyRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const options = (route.config as Record<string, unknown> | undefined)?.[KEY] as RawBodyOptions | undefined;
    if (options) route.bodyLimit = options.limitBytes;
  });
}
