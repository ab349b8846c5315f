import { type CanActivate, type ExecutionContext, Injectable, SetMetadata, createParamDecorator, applyDecorators, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { gateAs, isGatedUrl, OrgGate } from '@engage/platform';
import { Authenticator, type Caller, type CredentialKind } from '../application/authenticator';

const ACCEPT = Symbol('accepted credentials');

type AuthenticatedRequest = FastifyRequest & { caller?: Caller };

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly reflector: Reflector,
    private readonly gate: OrgGate,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const accept = this.reflector.getAllAndOverride<CredentialKind[]>(ACCEPT, [context.getHandler(), context.getClass()]) ?? ['session'];
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const authorization = request.headers.authorization;
    const bearer = typeof authorization === 'string' && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
    const apiKey = typeof request.headers['x-api-key'] === 'string' ? request.headers['x-api-key'] : undefined;
    const admit = isGatedUrl(request.url) ? (organizationId: string) => this.gate.admit(organizationId) : undefined;
    const caller = await this.authenticator.authenticate({ bearer, apiKey, requestId: String(request.id), admit }, accept);
    request.caller = caller;
    // A tenant-scoped route's request holds a slot of its organization until its handler ends.
    if (caller.ctx.organizationId) await gateAs(this.gate, request, caller.ctx.organizationId);
    return true;
  }
}

// `@Authenticated('session', 'api_key')` on a controller or route: who may call it.
export const Authenticated = (...accept: CredentialKind[]) => {
  const kinds = accept.length > 0 ? accept : (['session'] as CredentialKind[]);
  return applyDecorators(
    SetMetadata(ACCEPT, kinds),
    UseGuards(AuthGuard),
    ...(kinds.includes('session') ? [ApiBearerAuth()] : []),
    ...(kinds.includes('api_key') ? [ApiSecurity('api-key')] : []),
  );
};

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new Error('CurrentCaller used on a route without @Authenticated');
  return caller;
});
