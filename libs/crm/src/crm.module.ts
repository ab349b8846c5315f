import { Module } from '@nestjs/common';

// Filled by the crm issue: controllers, handlers, ports and their adapters.
@Module({})
export class CrmModule {}
