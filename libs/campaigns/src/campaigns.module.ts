import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ModuleRef } from '@nestjs/core';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { MessagingModule, OutboundDispatcher } from '@engage/messaging';
import { Database } from '@engage/platform';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { AudienceReader } from './application/audience-reader';
import { BroadcastPass } from './application/broadcast-pass';
import { BroadcastsService } from './application/broadcasts.service';
import { ContentPreviewService } from './application/content-preview.service';
import { dataApiTables, type Tables } from './application/data-api-tables';
import { OptOutKeywords } from './application/opt-out-keywords';
import { RecipientOutcomes } from './application/recipient-outcomes';
import { SegmentsWriter } from './application/segments.writer';
import { SegmentsService } from './application/segments.service';
import { RecipientZones } from './application/recipient-zones';
import { SequenceExits } from './application/sequence-exits';
import { StartSequenceHandler, StopSequencesHandler } from './application/sequence-commands';
import { SequencePass } from './application/sequence-pass';
import { SequencesService } from './application/sequences.service';
import { CampaignsController } from './http/campaigns.controller';
import { SequencesController } from './http/sequences.controller';

const TABLES = Symbol('CAMPAIGNS_TABLES');

// Campaigns (docs/campaigns.md): segments (written through the data API), audience and text
// previews, broadcasts, the worker that hands their recipients to messaging's paced queue, the
// consumer of their messages' outcomes and replies, the opt-out keywords, and drip sequences with
// their worker and exits.
@Module({
  imports: [IdentityModule, MessagingModule, CqrsModule.forRoot()],
  controllers: [CampaignsController, SequencesController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    { provide: TABLES, inject: [ModuleRef], useFactory: (moduleRef: ModuleRef) => dataApiTables(moduleRef) },
    { provide: AudienceReader, inject: [TABLES], useFactory: (tables: Tables) => new AudienceReader(tables) },
    { provide: SegmentsService, inject: [Database, AudienceReader], useFactory: (db: Database, a: AudienceReader) => new SegmentsService(db, a) },
    { provide: ContentPreviewService, inject: [Database, TABLES], useFactory: (db: Database, tables: Tables) => new ContentPreviewService(db, tables) },
    {
      provide: BroadcastsService,
      inject: [Database, TABLES, AudienceReader, CLOCK],
      useFactory: (db: Database, tables: Tables, a: AudienceReader, clock: Clock) => new BroadcastsService(db, tables, a, clock),
    },
    {
      provide: BroadcastPass,
      inject: [Database, BroadcastsService, OutboundDispatcher, CLOCK],
      useFactory: (db: Database, b: BroadcastsService, d: OutboundDispatcher, clock: Clock) => new BroadcastPass(db, b, d, clock),
    },
    { provide: RecipientZones, inject: [OrganizationSettings], useFactory: (settings: OrganizationSettings) => new RecipientZones(settings) },
    {
      provide: SequencesService,
      inject: [Database, TABLES, AudienceReader, RecipientZones, CLOCK],
      useFactory: (db: Database, tables: Tables, a: AudienceReader, zones: RecipientZones, clock: Clock) => new SequencesService(db, tables, a, zones, clock),
    },
    {
      provide: SequencePass,
      inject: [Database, OutboundDispatcher, RecipientZones, CLOCK],
      useFactory: (db: Database, d: OutboundDispatcher, zones: RecipientZones, clock: Clock) => new SequencePass(db, d, zones, clock),
    },
    RecipientOutcomes,
    OptOutKeywords,
    SequenceExits,
    StartSequenceHandler,
    StopSequencesHandler,
    SegmentsWriter,
  ],
  exports: [BroadcastsService, BroadcastPass, SequencesService, SequencePass],
})
export class CampaignsModule {}
