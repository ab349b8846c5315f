import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors, json } from '@engage/platform';
import { Conflict, DomainError, isUuid, NotFound, toView } from '@engage/shared-kernel';
import { BotRuntime } from '../application/bot-runtime';
import { BOT_SESSIONS } from '../domain/tables';

// POST /functions/v1/automation/bot-sessions/<id>/stop: any member (an agent taking the
// conversation over) stops an open session (`stopped`, end_reason `agent_stop`).
@ApiTags('automation')
@Controller('functions/v1/automation')
@Authenticated('session', 'api_key')
export class BotSessionsController {
  constructor(private readonly runtime: BotRuntime) {}

  @ApiErrors(404, 409)
  @ApiAnswer(200, json.viewSchema(BOT_SESSIONS))
  @Post('bot-sessions/:id/stop')
  @HttpCode(200)
  async stop(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    if (!isUuid(id))
      throw new DomainError('validation', 'bot_session.invalid_id', `bot session id must be a UUID, got ${JSON.stringify(String(id).slice(0, 64))}`);
    const found = await this.runtime.stop(caller.ctx, id.toLowerCase());
    if (!found) throw NotFound('bot_session', id);
    const { session } = found;
    if (!found.stopped) {
      throw Conflict('bot_session.not_open', `bot session ${id} has already ended (${session.status}${session.end_reason ? `: ${session.end_reason}` : ''})`);
    }
    return toView(BOT_SESSIONS, session);
  }
}
