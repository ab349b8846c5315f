import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { NotFound } from '@engage/shared-kernel';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { OnboardingService } from '../application/onboarding.service';
import { ONBOARDING_ACTION, ONBOARDING_STATE } from './onboarding.responses';

// §3 Onboarding for the signed-in user: GET answers where they are, POST /{action} advances.
@ApiTags('onboarding')
@Controller('functions/v1/onboarding')
@Authenticated('session')
export class OnboardingController {
  constructor(private readonly onboarding: OnboardingService) {}

  @ApiAnswer(200, ONBOARDING_STATE)
  @Get()
  state(@CurrentCaller() caller: Caller) {
    return this.onboarding.state(caller.ctx);
  }

  @ApiErrors(400, 404, 409, 429)
  @ApiAnswer(200, ONBOARDING_ACTION)
  @Post(':action')
  @HttpCode(200)
  act(@CurrentCaller() caller: Caller, @Param('action') action: string, @Body() body: unknown) {
    switch (action) {
      case 'verify-email':
        return this.onboarding.verifyEmail(caller.ctx);
      case 'select-plan':
        return this.onboarding.selectPlan(caller.ctx, body);
      case 'skip-channels':
        return this.onboarding.skipChannels(caller.ctx);
      case 'finish':
        return this.onboarding.finish(caller.ctx);
      default:
        throw NotFound('onboarding action');
    }
  }
}
