import { Controller, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { ApiAnswer, ApiErrors, json } from '@engage/platform';
import { SmsInbound, SmsPublicBase } from './sms-inbound';
import { FormBody } from './form-body.parser';
import { SMS_CALLBACK_FORM } from '../../conversations/messaging.responses';

// What the provider expects back: an empty TwiML document (no reply message).
const EMPTY_TWIML = '<Response></Response>';

// Inbound SMS and status callbacks of one SMS channel account (docs/messaging.md, SMS).
@ApiTags('messaging')
@Controller('functions/v1/sms-webhook')
export class SmsWebhookController {
  constructor(
    private readonly sms: SmsInbound,
    // The public base address the provider is given (PUBLIC_URL), which it signs with the path.
    private readonly publicBase: SmsPublicBase,
  ) {}

  @ApiErrors(400, 401, 404, 413, 415)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ schema: SMS_CALLBACK_FORM })
  @ApiHeader({ name: 'X-Twilio-Signature', required: true, description: 'base64 HMAC-SHA1 of the full URL and the sorted parameters with the auth token' })
  @ApiAnswer(200, json.text, 'Acknowledged: an empty TwiML document', 'text/xml')
  @Post(':channelAccountId')
  @HttpCode(200)
  @Header('Content-Type', 'text/xml; charset=utf-8')
  @FormBody()
  async receive(@Param('channelAccountId') channelAccountId: string, @Req() request: FastifyRequest): Promise<string> {
    if (request.body !== undefined && typeof request.body !== 'string') {
      throw new DomainError('unsupported_media_type', 'sms.not_form', 'Send the callback as Content-Type: application/x-www-form-urlencoded');
    }
    const signature = request.headers['x-twilio-signature'];
    await this.sms.receive({
      channelAccountId,
      url: this.publicBase.url + request.url,
      form: request.body ?? '',
      signature: typeof signature === 'string' ? signature : undefined,
    });
    return EMPTY_TWIML;
  }
}
