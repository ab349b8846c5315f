import { Controller, Get, Header, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { ApiAnswer, ApiErrors, json, RawBody } from '@engage/platform';
import { MetaInbound } from './meta-inbound';
import { META_RECEIVED } from '../../conversations/messaging.responses';

// Meta's webhook bodies are small (a batch of messaging events); a larger one is refused while it arrives.
const META_BODY_LIMIT_BYTES = 1024 * 1024;

// The Messenger and Instagram webhook of the installation's Meta app (docs/messaging.md).
@ApiTags('messaging')
@Controller('functions/v1/meta-webhook')
export class MetaWebhookController {
  constructor(private readonly meta: MetaInbound) {}

  @ApiErrors(403, 503)
  @ApiAnswer(200, json.text, 'The challenge, echoed', 'text/plain')
  @Get()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  handshake(@Query() query: Record<string, unknown>): string {
    return this.meta.handshake(query);
  }

  @ApiErrors(400, 401, 413, 415, 503)
  @ApiHeader({ name: 'X-Hub-Signature-256', required: true, description: 'sha256= + hex HMAC-SHA256 of the raw body with the Meta app secret' })
  @ApiAnswer(200, META_RECEIVED)
  @Post()
  @HttpCode(200)
  @RawBody({ limitBytes: META_BODY_LIMIT_BYTES })
  receive(@Req() request: FastifyRequest) {
    // Another media type's parser would hand over decoded text, not the bytes signed.
    if (request.body !== undefined && !Buffer.isBuffer(request.body)) {
      throw new DomainError('unsupported_media_type', 'meta.not_json', 'Send the event as Content-Type: application/json');
    }
    const signature = request.headers['x-hub-signature-256'];
    return this.meta.receive(request.body ?? Buffer.alloc(0), typeof signature === 'string' ? signature : undefined);
  }
}
