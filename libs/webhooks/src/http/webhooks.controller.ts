import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { WebhookActions } from '../application/webhook-actions.service';
import { ApiErrors } from '@engage/platform';

// The test action and manual retry (OWNER and ADMIN). Configurations and logs themselves are read
// and written through /rest/v1/webhook_configurations and /rest/v1/webhook_logs.
@ApiTags('webhooks')
@Controller('functions/v1/webhooks')
@Authenticated('session', 'api_key')
export class WebhooksController {
  constructor(private readonly actions: WebhookActions) {}

  @ApiErrors(404)
  @Post(':id/test')
  @HttpCode(200)
  test(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.actions.test(caller.ctx, id);
  }

  @ApiErrors(404)
  @Post('logs/:id/retry')
  @HttpCode(200)
  retry(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.actions.retry(caller.ctx, id);
  }
}
