import { Module } from '@nestjs/common';

// Filled by the reengagement issue: controllers, handlers, ports and their adapters.
@Module({})
export class ReengagementModule {}
