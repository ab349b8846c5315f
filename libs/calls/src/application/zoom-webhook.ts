import type { OrganizationSettings } from '@engage/identity';
import type { Database } from '@engage/platform';
import { DomainError, isUuid, NotFound, Unauthorized } from '@engage/shared-kernel';
import { InvalidZoomEvent, parseRecordingCompleted } from '../domain/zoom-event';
import { urlValidationAnswer, verifyZoomSignature } from '../domain/zoom-signature';
import { recordMeeting } from './zoom-import';

const STALE = 'The request timestamp is more than 5 minutes away from now';

export interface ZoomDelivery {
  organizationId: string;
  rawBody: Buffer;
  signature: string | string[] | undefined;
  timestamp: string | string[] | undefined;
  requestId: string;
}

// One event notification of an organization's Zoom app: its signature checked with the
// organization's secret token, then the URL validation answered or the meeting's recordings recorded.
export class ZoomWebhookReceiver {
  constructor(
    private readonly settings: OrganizationSettings,
    private readonly db: Database,
  ) {}

  async receive(delivery: ZoomDelivery): Promise<Record<string, unknown>> {
    const org = delivery.organizationId.toLowerCase();
    const secret = isUuid(org) ? await this.settings.zoomSecretToken(org) : null;
    // An unknown organization and one without a secret token look alike.
    if (!secret) throw NotFound('zoom_webhook');
    const { rawBody } = delivery;
    const check = verifyZoomSignature({ secret, signature: delivery.signature, timestamp: delivery.timestamp, rawBody, nowMs: Date.now() });
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
    const ctx = { organizationId: org, userId: null, role: 'SYSTEM' as const, requestId: delivery.requestId };
    const ids = await this.db.inTenant(ctx, (tx) => recordMeeting(tx, org, event));
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
