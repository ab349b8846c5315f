import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiAnswer, ApiErrors, RawBody } from '@engage/platform';
import { DomainError, Unauthorized } from '@engage/shared-kernel';
import { ApplyBillingEvent, type BillingEventOutcome } from '../application/apply-billing-event';
import { parseBillingEvent } from '../domain/billing-event';
import { signatureMatches } from '../domain/signature';
import { BILLING_CONFIG, type BillingConfig } from '../billing.config';
import { BILLING_EVENT_OUTCOME } from './billing.responses';

export const BILLING_BODY_LIMIT_BYTES = 64 * 1024;

const timestamp = { type: 'string', format: 'date-time' };
// What the document tells integrators; the handler checks the bytes itself (domain/billing-event.ts).
const EVENT_SCHEMA = {
  type: 'object',
  required: ['organization_id', 'plan_id', 'storefront_store_id', 'status'],
  properties: {
    organization_id: { type: 'string', format: 'uuid' },
    plan_id: { type: 'string', maxLength: 255 },
    storefront_store_id: {
      oneOf: [
        { type: 'string', minLength: 1, maxLength: 255 },
        { type: 'integer', minimum: 0 },
      ],
    },
    status: { type: 'string', enum: ['trialing', 'active', 'past_due', 'canceled'] },
    shop_domain: { type: 'string', maxLength: 255 },
    current_period_start: timestamp,
    current_period_end: timestamp,
    trial_start: { ...timestamp, nullable: true },
    trial_end: { ...timestamp, nullable: true },
    cancel_at_period_end: { type: 'boolean' },
  },
};

// §4.7: the storefront integration's subscription-state events. The body arrives as raw bytes and
// its signature is checked before anything is parsed (§5); docs/billing.md.
@ApiTags('billing')
@Controller('functions/v1/storefront-billing-webhook')
export class StorefrontBillingWebhookController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
  ) {}

  @ApiErrors(400, 401, 404, 409, 413, 415, 422, 503)
  @ApiAnswer(200, BILLING_EVENT_OUTCOME)
  @ApiBody({ schema: EVENT_SCHEMA })
  @ApiHeader({ name: 'X-Billing-Signature', required: true, description: 'hex (or sha256=hex) HMAC-SHA256 of the raw body (name: BILLING_SIGNATURE_HEADER)' })
  @Post()
  @HttpCode(200)
  @RawBody({ limitBytes: BILLING_BODY_LIMIT_BYTES })
  async receive(@Req() request: FastifyRequest): Promise<BillingEventOutcome> {
    const secrets = this.config.secrets;
    if (secrets.length === 0) throw new DomainError('unavailable', 'billing.not_configured', 'The billing bridge is not configured on this server');
    const header = request.headers[this.config.signatureHeader];
    // Another media type's parser (text/plain) would hand over decoded text, not the bytes signed.
    if (request.body !== undefined && !Buffer.isBuffer(request.body)) {
      throw new DomainError('unsupported_media_type', 'billing.not_json', 'Send the event as Content-Type: application/json');
    }
    const body = request.body ?? Buffer.alloc(0);
    if (!signatureMatches(body, typeof header === 'string' ? header : undefined, secrets)) {
      throw Unauthorized('billing.invalid_signature', header === undefined ? 'The signature header is missing' : 'The signature does not match the body');
    }
    return this.commands.execute(new ApplyBillingEvent(parseBillingEvent(body)));
  }
}
