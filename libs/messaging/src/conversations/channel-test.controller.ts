import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { ChannelAccountService } from './channel-account.service';
import { CHANNEL_CHECK } from './messaging.responses';

// POST .../channel-accounts/<id>/test: the stored credentials tried against the provider (onboarding's channel step).
@ApiTags('messaging')
@Controller('functions/v1/messaging')
@Authenticated('session', 'api_key')
export class ChannelTestController {
  constructor(private readonly channels: ChannelAccountService) {}

  @ApiErrors(403, 404, 422)
  @ApiAnswer(200, CHANNEL_CHECK)
  @Post('channel-accounts/:id/test')
  @HttpCode(200)
  test(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<{ ok: boolean; error?: string }> {
    return this.channels.check(caller.ctx, id);
  }
}
