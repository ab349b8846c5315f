import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { IdentityModule } from '@engage/identity';
import { PLATFORM_RUNTIME, type PlatformRuntime } from '@engage/platform';
import { ApplyBillingEventHandler } from './application/apply-billing-event';
import { GetSubscriptionViewHandler } from './application/get-subscription-view';
import { BILLING_CONFIG, billingConfig } from './billing.config';
import { StorefrontBillingWebhookController } from './http/storefront-billing-webhook.controller';
import { SubscriptionController } from './http/subscription.controller';

// The billing bridge, the plans and the subscription view; commands and queries go through
// @nestjs/cqrs's buses to their handlers (docs/billing.md).
@Module({
  imports: [IdentityModule, CqrsModule.forRoot()],
  controllers: [StorefrontBillingWebhookController, SubscriptionController],
  providers: [
    { provide: BILLING_CONFIG, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => billingConfig(runtime) },
    ApplyBillingEventHandler,
    GetSubscriptionViewHandler,
  ],
})
export class BillingModule {}
