import { Module } from '@nestjs/common';
import { ContactService, CrmModule } from '@engage/crm';
import { IdentityModule } from '@engage/identity';
import { type Config, CONFIG, createOutboundClient, Database } from '@engage/platform';
import { CLOCK, systemClock } from '@engage/shared-kernel';
import { CallRegistration } from './application/call-registration.service';
import { CALLS_OUTBOUND, CallRecordingController } from './http/call-recording.controller';
import { CallPipelineModule } from './pipeline.module';
import { ZoomModule } from './zoom.module';

// Call intelligence (docs/calls.md): registering call recordings from the mobile API, the processing
// pipeline (transcription, analysis) and Zoom's meeting recordings, all on the same records.
// multipart/form-data parsing (@fastify/multipart) is registered by the CRM module it imports
// (CsvBodyParser): one registration per server, which marks requests and reads nothing itself.
@Module({
  imports: [IdentityModule, CrmModule, CallPipelineModule, ZoomModule],
  controllers: [CallRecordingController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    // Checks recording addresses (and, later, fetches them) under OUTBOUND_ALLOW_HOSTS.
    { provide: CALLS_OUTBOUND, inject: [CONFIG], useFactory: (config: Config) => createOutboundClient(config, { keepAlive: false }) },
    {
      provide: CallRegistration,
      inject: [Database, ContactService],
      useFactory: (db: Database, contacts: ContactService) => new CallRegistration(db, contacts),
    },
  ],
  exports: [CALLS_OUTBOUND],
})
export class CallsModule {}
