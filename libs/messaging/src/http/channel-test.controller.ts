import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DomainError, isUuid, NotFound } from '@engage/shared-kernel';
import { Authenticated, type Caller, CurrentCaller, isAllowed } from '@engage/identity';
import { ApiAnswer, ApiErrors, Database } from '@engage/platform';
import { ChannelAdapters } from '../application/channel-adapter.port';
import { type ChannelAccountRow, CHANNEL_BY_ID } from '../infrastructure/messaging.sql';
import { CHANNEL_CHECK } from './messaging.responses';

// POST .../channel-accounts/<id>/test: the stored credentials tried against the provider (onboarding's channel step).
@ApiTags('messaging')
@Controller('functions/v1/messaging')
@Authenticated('session', 'api_key')
export class ChannelTestController {
  constructor(
    private readonly db: Database,
    private readonly adapters: ChannelAdapters,
  ) {}

  @ApiErrors(403, 404, 422)
  @ApiAnswer(200, CHANNEL_CHECK)
  @Post('channel-accounts/:id/test')
  @HttpCode(200)
  async test(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<{ ok: boolean; error?: string }> {
    const { ctx } = caller;
    if (ctx.role !== 'API_KEY' && !isAllowed(ctx.role, 'organization.settings.manage')) {
      throw new DomainError('forbidden', 'insufficient_role', `Role ${ctx.role} may not manage channel accounts`);
    }
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [id]));
    if (!channel) throw NotFound('channel_account', id);
    return this.adapters.check(ctx, channel);
  }
}
