import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseSendRequest } from '../domain/send-request';
import { SendAuthorizer } from '../application/send-authorizer';
import { SendFailed, SendService } from '../application/send.service';

export const credentialsOf = (request: FastifyRequest) => {
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  const apiKey = typeof request.headers['x-api-key'] === 'string' ? request.headers['x-api-key'] : undefined;
  return { bearer, apiKey, requestId: String(request.id) };
};

// §4.1 POST /functions/v1/chat-lite-send.
@ApiTags('messaging')
@Controller('functions/v1')
export class ChatLiteSendController {
  constructor(
    private readonly sends: SendService,
    private readonly authorizer: SendAuthorizer,
  ) {}

  @Post('chat-lite-send')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiSecurity('api-key')
  async send(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const credentials = credentialsOf(request);
    const identity = await this.authorizer.identify(credentials);
    const input = parseSendRequest(request.body);
    const ctx = this.authorizer.contextFor(identity, input.organizationId, credentials.requestId);
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
