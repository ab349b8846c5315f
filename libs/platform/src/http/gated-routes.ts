import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { GatedKind, OrgGate } from './org-gate';

// Tenant-scoped routes: the data API and the functions. /auth/v1 (sign-in, the account) is per
// user and limited on its own; /healthz, /readyz, /metrics and /docs have no organization.
const GATED = /^\/(rest|functions)\/v1\//;
// A route path that may serve such URLs (a path parameter in the first segment might).
const MAY_BE_GATED = /^\/(:|(rest|functions)\/v1\/)/;

// Whether a request to this URL is charged to its organization's gate.
export const isGatedUrl = (url: string): boolean => GATED.test(url);

const HELD = Symbol('organization gate slot');

// undefined: the route is not wrapped (never gated, nothing could give a slot back); null: wrapped,
// no slot held yet; a function: the held slot's release.
type GatedRequest = FastifyRequest & { [HELD]?: (() => void) | null };

// An upload: a body its handler reads as it arrives (multipart/form-data, or a stream a content
// type parser handed over, as text/csv's), so the client sets the pace of the request; any other
// body was read whole before the handler ran.
export function gatedKindOf(request: FastifyRequest): GatedKind {
  const multipart = (request as { isMultipart?: () => boolean }).isMultipart?.() === true;
  return multipart || request.body instanceof Readable ? 'upload' : 'request';
}

// Called by the guard that names the request's organization (the caller's, once authenticated),
// after the credentials hold and before the handler runs: a request to a tenant-scoped URL takes a
// slot of its organization's gate (waiting for one, or refused with 429), and an upload one of the
// upload budget too, held until the route's handler has ended (installGatedRoutes gives them back).
// Unauthenticated routes and the provider's inbound webhook name no organization and are not gated.
export async function gateAs(gate: OrgGate, request: FastifyRequest, organizationId: string): Promise<void> {
  const gated = request as GatedRequest;
  if (gated[HELD] !== null || !GATED.test(request.url)) return;
  gated[HELD] = await gate.enter(organizationId, gatedKindOf(request));
}

function giveBack(request: GatedRequest): void {
  const release = request[HELD];
  if (!release) return;
  request[HELD] = undefined;
  release();
}

// Routes are added after this runs (Nest registers them at init). A route that may be
// tenant-scoped gets its handler (Nest's: guards, pipes, the controller's method, the exception
// filters) wrapped so that a slot its guard took is given back when that handler has ended, however
// it ends. This in place of a Nest interceptor: any interceptor makes Nest run the route through its
// rxjs pipeline, about a sixth of the data API's CPU per request (bench/results/HISTORY.md).
export function installGatedRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!MAY_BE_GATED.test(route.url)) return;
    const handler = route.handler;
    route.handler = function gatedHandler(this: FastifyInstance, request, reply) {
      let result: unknown;
      (request as GatedRequest)[HELD] = null;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        giveBack(request as GatedRequest);
        throw error;
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') {
        giveBack(request as GatedRequest);
        return result;
      }
      return (result as PromiseLike<unknown>).then(
        (value) => {
          giveBack(request as GatedRequest);
          return value;
        },
        (error: unknown) => {
          giveBack(request as GatedRequest);
          throw error;
        },
      );
    } as RouteOptions['handler'];
  });
}
