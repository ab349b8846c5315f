import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { finalize, from, mergeMap, type Observable } from 'rxjs';
import type { OrgGate } from './org-gate';

// Data API requests of a signed-in caller (the auth guard has set request.caller by the time
// interceptors run) go through the gate of their organization. Function routes are not gated:
// some hold no connection while they wait (chat-lite-send on the provider), and a cap on requests
// would cap their throughput rather than their share of the pool.
const GATED = /^\/(rest\/v1|functions\/v1\/rest-api-proxy)\//;

type CallerRequest = FastifyRequest & { caller?: { ctx?: { organizationId?: string } } };

@Injectable()
export class OrgGateInterceptor implements NestInterceptor {
  constructor(private readonly gate: OrgGate) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const organizationId = request.caller?.ctx?.organizationId;
    if (!organizationId || !GATED.test(request.url)) return next.handle();
    return from(this.gate.enter(organizationId)).pipe(mergeMap((release) => next.handle().pipe(finalize(release))));
  }
}
