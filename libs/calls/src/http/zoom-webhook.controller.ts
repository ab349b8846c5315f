import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiAnswer, ApiErrors, RawBody } from '@engage/platform';
import { DomainError } from '@engage/shared-kernel';
import { ZoomWebhookReceiver } from '../application/zoom-webhook';
import { ZOOM_WEBHOOK_ANSWER } from './calls.responses';

export const ZOOM_BODY_LIMIT_BYTES = 256 * 1024;

// Zoom's event notifications, one address per organization so its secret token is known before the
// body is read: POST /functions/v1/zoom-webhook/<organization_id> (docs/calls.md, "Meeting recordings").
@ApiTags('calls')
@Controller('functions/v1/zoom-webhook')
export class ZoomWebhookController {
  constructor(private readonly receiver: ZoomWebhookReceiver) {}

  @ApiErrors(400, 401, 404, 413, 415)
  @ApiHeader({ name: 'x-zm-signature', required: true, description: 'v0= + hex HMAC-SHA256 of v0:{x-zm-request-timestamp}:{raw body} with the secret token' })
  @ApiHeader({ name: 'x-zm-request-timestamp', required: true, description: 'seconds since the epoch; more than 5 minutes away is refused' })
  @ApiAnswer(200, ZOOM_WEBHOOK_ANSWER)
  @Post(':organizationId')
  @HttpCode(200)
  @RawBody({ limitBytes: ZOOM_BODY_LIMIT_BYTES })
  receive(@Param('organizationId') organizationId: string, @Req() request: FastifyRequest): Promise<Record<string, unknown>> {
    if (request.body !== undefined && !Buffer.isBuffer(request.body)) {
      throw new DomainError('unsupported_media_type', 'zoom.not_json', 'Zoom sends its events as Content-Type: application/json');
    }
    return this.receiver.receive({
      organizationId,
      rawBody: request.body ?? Buffer.alloc(0),
      signature: request.headers['x-zm-signature'],
      timestamp: request.headers['x-zm-request-timestamp'],
      requestId: request.id,
    });
  }
}
