import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { InboundReceiver } from '../../inbound/inbound-receiver';
import { INBOUND_RECEIVED } from '../../conversations/messaging.responses';
import { ApiAnswer, ApiErrors } from '@engage/platform';

// §4.3 inbound receiver: the provider posts here with the channel's secret token; the event is
// stored and acknowledged at once (docs/messaging.md shows the payloads).
@ApiTags('messaging')
@Controller('functions/v1/chat-lite-webhook')
export class ChatLiteWebhookController {
  constructor(private readonly receiver: InboundReceiver) {}

  @ApiErrors(401, 404)
  @ApiAnswer(200, INBOUND_RECEIVED)
  @Post(':channelAccountId')
  @HttpCode(200)
  receive(@Param('channelAccountId') channelAccountId: string, @Req() request: FastifyRequest) {
    const header = request.headers['x-channel-token'];
    const authorization = request.headers.authorization;
    const token =
      typeof header === 'string' ? header : typeof authorization === 'string' && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
    return this.receiver.receive(channelAccountId, token, request.body);
  }
}
