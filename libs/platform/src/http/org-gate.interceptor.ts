import { type CallHandler, type ExecutionContext, type INestApplication, Injectable, type NestInterceptor, type Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { finalize, from, mergeMap, type Observable } from 'rxjs';
import type { OrgGate } from './org-gate';

// Tenant-scoped routes: the data API and the functions. /auth/v1 (sign-in, the account) is per
// user and limited on its own; /healthz, /readyz, /metrics and /docs have no organization.
const GATED = /^\/(rest|functions)\/v1\//;

// Whether a request to this URL is charged to its organization's gate.
export const isGatedUrl = (url: string): boolean => GATED.test(url);
const GATE_AS = Symbol('organization gated');

type GatedRequest = FastifyRequest & { caller?: { ctx?: { organizationId?: string } }; [GATE_AS]?: string };

// A route that authenticates in its own guard rather than with @Authenticated (chat-lite-send)
// names the organization its work is charged to here, before the interceptors run.
export function gateAs(request: FastifyRequest, organizationId: string): void {
  (request as GatedRequest)[GATE_AS] = organizationId;
}

// Every request of a tenant-scoped route whose organization is known by the time interceptors run
// (the guards have set request.caller, or the route called gateAs) goes through its organization's
// gate. Routes without one are not gated: unauthenticated ones (sign-in has its own limits, an
// invitation's acceptance, re-hosted media read from files) and the provider's inbound webhook,
// which is keyed by a channel's token, not a caller, and must never refuse a message.
@Injectable()
export class OrgGateInterceptor implements NestInterceptor {
  constructor(private readonly gate: OrgGate) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<GatedRequest>();
    const organizationId = request[GATE_AS] ?? request.caller?.ctx?.organizationId;
    if (!organizationId || !GATED.test(request.url)) return next.handle();
    return from(this.gate.enter(organizationId)).pipe(mergeMap((release) => next.handle().pipe(finalize(release))));
  }
}

const joinPath = (...parts: string[]): string => `/${parts.join('/')}`.replace(/\/+/g, '/');
const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [typeof value === 'string' ? value : '']);

// Whether any route of this controller can be a tenant-scoped one (a path parameter in the first
// segment might be).
function mayBeGated(controller: Type): boolean {
  const methods = Object.getOwnPropertyNames(controller.prototype).map((name) => Object.getOwnPropertyDescriptor(controller.prototype, name)?.value);
  const routes = methods.filter((method) => typeof method === 'function' && Reflect.hasMetadata(PATH_METADATA, method));
  return asList(Reflect.getMetadata(PATH_METADATA, controller)).some((base) =>
    routes.some((route) => asList(Reflect.getMetadata(PATH_METADATA, route)).some((path) => /^\/(:|(rest|functions)\/v1\/)/.test(joinPath(base, path, '')))),
  );
}

// The gate's interceptor goes on the controllers that have tenant-scoped routes only (as if each
// were decorated with @UseInterceptors): any interceptor makes Nest run a route through its rxjs
// pipeline, which halved /healthz's throughput as a global one (bench/results/HISTORY.md, hot path).
// Called before the routes are registered (app.init).
export function useOrgGateInterceptor(app: INestApplication, interceptor: OrgGateInterceptor): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller || !mayBeGated(controller)) continue;
      // The metadata is the class's, shared by every app of the process: an earlier app's gate
      // interceptor is replaced, never stacked with this one.
      const own = (Reflect.getOwnMetadata(INTERCEPTORS_METADATA, controller) as unknown[] | undefined) ?? [];
      const others = own.filter((entry) => !(entry instanceof OrgGateInterceptor));
      Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...others], controller);
    }
  }
}
