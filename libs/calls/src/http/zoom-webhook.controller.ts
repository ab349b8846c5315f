import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { OrganizationSettings } from '@engage/identity';
import { ApiAnswer, ApiErrors, Database, RawBody } from '@engage/platform';
import { DomainError, isUuid, NotFound, Unauthorized } from '@engage/shared-kernel';
import { recordMeeting } from '../application/zoom-import';
import { InvalidZoomEvent, parseRecordingCompleted } from '../domain/zoom-event';
import { urlValidationAnswer, verifyZoomSignature } from '../domain/zoom-signature';
import { ZOOM_WEBHOOK_ANSWER } from './calls.responses';

export const ZOOM_BODY_LIMIT_BYTES = 256 * 1024;

const STALE = 'The request timestamp is more than 5 minutes away from now';

// Zoom's event notifications, one address per organization so its secret token is known before the
// body is read: POST /functions/v1/zoom-webhook/<organization_id> (docs/calls.md, "Meeting recordings").
@ApiTags('calls')
@Controller('functions/v1/zoom-webhook')
export class ZoomWebhookController {
  constructor(
    private readonly settings: OrganizationSettings,
    private readonly db: Database,
  ) {}

  @ApiErrors(400, 401, 404, 413, 415)
  @ApiHeader({ name: 'x-zm-signature', required: true, description: 'v0= + hex HMAC-SHA256 of v0:{x-zm-request-timestamp}:{raw body} with the secret token' })
  @ApiHeader({ name: 'x-zm-request-timestamp', required: true, description: 'seconds since the epoch; more than 5 minutes away is refused' })
  @ApiAnswer(200, ZOOM_WEBHOOK_ANSWER)
  @Post(':organizationId')
  @HttpCode(200)
  @RawBody({ limitBytes: ZOOM_BODY_LIMIT_BYTES })
  async receive(@Param('organizationId') organizationId: string, @Req() request: FastifyRequest): Promise<Record<string, unknown>> {
    const secret = isUuid(organizationId) ? await this.settings.zoomSecretToken(organizationId.toLowerCase()) : null;
    // An unknown organization and one without a secret token look alike.
    if (!secret) throw NotFound('zoom_webhook');
    if (request.body !== undefined && !Buffer.isBuffer(request.body)) {
      throw new DomainError('unsupported_media_type', 'zoom.not_json', 'Zoom sends its events as Content-Type: application/json');
    }
    const rawBody = request.body ?? Buffer.alloc(0);
    const check = verifyZoomSignature({
      secret, signature: request.headers['x-zm-signature'], timestamp: request.headers['x-zm-request-timestamp'], rawBody, nowMs: Date.now(),
    });
    if (!check.ok) {
      if (check.reason === 'stale_timestamp') throw Unauthorized('zoom.stale_timestamp', STALE);
      const message = check.reason === 'missing_signature' ? 'The signature headers are missing' : 'The signature does not match the body';
      throw Unauthorized('zoom.invalid_signature', message);
    }
    const body = parseJsonObject(rawBody);
    if (body.event === 'endpoint.url_validation') {
      const plainToken = (body.payload as { plainToken?: unknown } | undefined)?.plainToken;
      if (typeof plainToken !== 'string' || plainToken.length === 0 || plainToken.length > 512) {
        throw new DomainError('validation', 'zoom.invalid_event', 'payload.plainToken must be a non-empty string');
      }
      return urlValidationAnswer(secret, plainToken);
    }
    if (body.event !== 'recording.completed') return { received: true, ignored: true };
    let event;
    try {
      event = parseRecordingCompleted(body);
    } catch (error) {
      if (error instanceof InvalidZoomEvent) throw new DomainError('validation', 'zoom.invalid_event', error.message);
      throw error;
    }
    const org = organizationId.toLowerCase();
    const ids = await this.db.inTenant({ organizationId: org, userId: null, role: 'SYSTEM', requestId: request.id }, (tx) => recordMeeting(tx, org, event));
    return { received: true, call_record_ids: ids };
  }
}

function parseJsonObject(raw: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new DomainError('validation', 'zoom.invalid_json', 'The body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError('validation', 'zoom.invalid_json', 'The body is not a JSON object');
  }
  return value as Record<string, unknown>;
}
