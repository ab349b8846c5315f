import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, type Caller, CurrentCaller } from '@engage/identity';
import { ApiAnswer, ApiErrors } from '@engage/platform';
import { GetSubscriptionView } from '../application/get-subscription-view';
import type { SubscriptionView } from '../domain/subscription-view';
import { SUBSCRIPTION_VIEW } from './billing.responses';

// The subscription view of the caller's organization: plan, status, dates and usage against limits.
@ApiTags('billing')
@Controller('functions/v1/subscription')
@Authenticated('session', 'api_key')
export class SubscriptionController {
  constructor(private readonly queries: QueryBus) {}

  @ApiErrors(401)
  @ApiAnswer(200, SUBSCRIPTION_VIEW)
  @Get()
  view(@CurrentCaller() caller: Caller): Promise<SubscriptionView> {
    return this.queries.execute(new GetSubscriptionView(caller.ctx));
  }
}
