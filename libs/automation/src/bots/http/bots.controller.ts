import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors, json } from '@engage/platform';
import { BotFlowsService } from '../application/bot-flows.service';

const { integer, uuid, at, object } = json;
const PUBLISHED = object({ bot_flow_id: uuid, version: integer, published_at: at });

// Flows are read and written through /rest/v1/bot_flows, their versions and sessions read through
// /rest/v1/bot_flow_versions and /rest/v1/bot_sessions; here, publishing (OWNER and ADMIN).
@ApiTags('automation')
@Controller('functions/v1/automation')
@Authenticated('session', 'api_key')
export class BotsController {
  constructor(private readonly flows: BotFlowsService) {}

  @ApiErrors(403, 404)
  @ApiAnswer(200, PUBLISHED)
  @Post('bots/:id/publish')
  @HttpCode(200)
  publish(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.flows.publish(caller.ctx, id);
  }
}
