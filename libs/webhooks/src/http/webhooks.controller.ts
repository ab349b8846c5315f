import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { WebhookActions } from '../application/webhook-actions.service';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { ATTEMPT_OUTCOME } from './webhooks.responses';

// The test action and manual retry (OWNER and ADMIN). Configurations and logs themselves are read
// and written through /rest/v1/webhook_configurations and /rest/v1/webhook_logs.
@ApiTags('webhooks')
@Controller('functions/v1/webhooks')
@Authenticated('session', 'api_key')
export class WebhooksController {
  constructor(private readonly actions: WebhookActions) {}

  @ApiErrors(404)
  @ApiAnswer(200, ATTEMPT_OUTCOME)
  @Post(':id/test')
  @HttpCode(200)
  test(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.actions.test(caller.ctx, id);
  }

  @ApiErrors(404, 409)
  @ApiAnswer(200, ATTEMPT_OUTCOME)
  @Post('logs/:id/retry')
  @HttpCode(200)
  retry(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.actions.retry(caller.ctx, id);
  }
}
