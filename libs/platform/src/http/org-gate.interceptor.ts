import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
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
