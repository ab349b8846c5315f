import { Module } from '@nestjs/common';

// Filled by the billing issue: controllers, handlers, ports and their adapters.
@Module({})
export class BillingModule {}
