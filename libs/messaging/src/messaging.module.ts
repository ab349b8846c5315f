import { Module } from '@nestjs/common';

// Filled by the messaging issue: controllers, handlers, ports and their adapters.
@Module({})
export class MessagingModule {}
