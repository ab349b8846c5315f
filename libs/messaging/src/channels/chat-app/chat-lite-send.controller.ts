import { type CanActivate, Controller, type ExecutionContext, HttpCode, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiAnswer, gateAs, OrgGate } from '@engage/platform';
import { isUuid } from '@engage/shared-kernel';
import { parseSendRequest } from '../../domain/send-request';
import { SendAuthorizer } from './send-authorizer';
import { SendFailed } from '../../outbound/dispatcher';
import { SendService } from './send.service';
import { SEND_OUTCOME } from '../../conversations/messaging.responses';

export const credentialsOf = (request: FastifyRequest) => {
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  const apiKey = typeof request.headers['x-api-key'] === 'string' ? request.headers['x-api-key'] : undefined;
  return { bearer, apiKey, requestId: String(request.id) };
};

type Identity = Awaited<ReturnType<SendAuthorizer['identify']>>;
type SendRequest = FastifyRequest & { sender?: Identity };

// Who is sending (401 when nobody); the send then takes a slot of its
// organization's gate like every other function (the anon key's sends count against the
// organization the body names).
@Injectable()
export class SenderGuard implements CanActivate {
  constructor(
    private readonly authorizer: SendAuthorizer,
    private readonly gate: OrgGate,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<SendRequest>();
    const admit = (organizationId: string) => this.gate.admit(organizationId);
    request.sender = await this.authorizer.identify({ ...credentialsOf(request), admit });
    const named = (request.body as { organizationId?: unknown } | undefined)?.organizationId;
    const organizationId = request.sender.ctx?.organizationId ?? (isUuid(named) ? named : undefined);
    if (organizationId) await gateAs(this.gate, request, organizationId);
    return true;
  }
}

// §4.1 POST /functions/v1/chat-lite-send.
@ApiTags('messaging')
@Controller('functions/v1')
export class ChatLiteSendController {
  constructor(
    private readonly sends: SendService,
    private readonly authorizer: SendAuthorizer,
  ) {}

  @ApiAnswer(200, SEND_OUTCOME)
  @Post('chat-lite-send')
  @HttpCode(200)
  @UseGuards(SenderGuard)
  @ApiBearerAuth()
  @ApiSecurity('api-key')
  async send(@Req() request: SendRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const input = parseSendRequest(request.body);
    const ctx = this.authorizer.contextFor(request.sender!, input.organizationId, String(request.id));
    try {
      return await this.sends.send(ctx, input);
    } catch (error) {
      // §7: a provider failure is a 500 carrying the provider's message (the attempt is stored FAILED).
      if (!(error instanceof SendFailed)) throw error;
      void reply.status(500);
      return { error: error.message, code: 'provider_error' };
    }
  }
}
