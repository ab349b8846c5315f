import { defineContext, type MigrationClass } from '@engage/platform';
import { SegmentsWriter } from './application/segments.writer';
import { broadcastQueue } from './application/broadcast-pass';
import { OUTCOME_EVENTS } from './application/recipient-outcomes';
import { OPT_OUT_EVENTS } from './application/opt-out-keywords';
import { CAMPAIGNS_EVENTS } from './application/campaigns-events';
import { sequenceQueue } from './application/sequence-pass';
import { EXIT_EVENTS } from './application/sequence-exits';
import { CampaignsModule } from './campaigns.module';
import { CAMPAIGNS_PERMISSIONS } from './campaigns.permissions';
import { CAMPAIGNS_TABLES } from './infrastructure/exposed-tables';
import { CreateCampaignsTables1763800017001 } from './infrastructure/migrations/0001-create-campaigns-tables';
import { AddBroadcastRepliesAndAutoPause1763800017002 } from './infrastructure/migrations/0002-add-broadcast-replies-and-auto-pause';
import { CreateSequenceTables1763800017003 } from './infrastructure/migrations/0003-create-sequence-tables';

export { CampaignsModule } from './campaigns.module';
export { CAMPAIGNS_TABLES } from './infrastructure/exposed-tables';
export { CAMPAIGNS_MANAGE } from './campaigns.permissions';
export { BroadcastPass, broadcastQueue, type HandOutOptions } from './application/broadcast-pass';
export { BroadcastsService } from './application/broadcasts.service';
export { SequencePass, sequenceQueue } from './application/sequence-pass';
export { SequencesService } from './application/sequences.service';
// Commands on the command bus for a rule's start_sequence and stop_sequences actions.
export { StartSequence, StopSequences } from './application/sequence-commands';

export {
  CAMPAIGNS_EVENTS,
  BROADCAST_RESPONSE,
  CONTACT_OPTED_OUT,
  CONTACT_OPTED_IN,
  type BroadcastResponsePayload,
  type OptInChangePayload,
} from './application/campaigns-events';

export const campaignsMigrations: MigrationClass[] = [
  CreateCampaignsTables1763800017001,
  AddBroadcastRepliesAndAutoPause1763800017002,
  // Drip sequences, their versions, enrolments and the steps handed to the queue.
  CreateSequenceTables1763800017003,
];

// Campaigns as the composition sees it (docs/campaigns.md): segments written through the data API
// by their writer, recipients read-only there, broadcasts through /functions/v1/campaigns, the
// worker's hot queues that start scheduled broadcasts and hand recipients and sequence steps to
// messaging's paced queue, the consumers of messaging's message outcomes, replies and keywords, the
// one that ends enrolments on a reply, a resolved conversation or an opt-out, and the events
// campaigns publish (broadcast.response, contact.opted_out, contact.opted_in). Sequences and their
// enrolments are read-only through the data API.
export const campaignsManifest = defineContext({
  name: 'campaigns',
  module: CampaignsModule,
  migrations: campaignsMigrations,
  tables: [
    { table: CAMPAIGNS_TABLES.segments, writer: SegmentsWriter },
    { table: CAMPAIGNS_TABLES.recipients },
    { table: CAMPAIGNS_TABLES.sequences },
    { table: CAMPAIGNS_TABLES.enrollments },
  ],
  publishes: CAMPAIGNS_EVENTS,
  consumes: { events: [...new Set([...OUTCOME_EVENTS, ...OPT_OUT_EVENTS, ...EXIT_EVENTS])] },
  jobs: { queues: [broadcastQueue, sequenceQueue] },
  permissions: CAMPAIGNS_PERMISSIONS,
});
