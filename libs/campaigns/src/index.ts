import { defineContext, type MigrationClass } from '@engage/platform';
import { SegmentsWriter } from './application/segments.writer';
import { broadcastQueue } from './application/broadcast-pass';
import { OUTCOME_EVENTS } from './application/recipient-outcomes';
import { OPT_OUT_EVENTS } from './application/opt-out-keywords';
import { CAMPAIGNS_EVENTS } from './application/campaigns-events';
import { CampaignsModule } from './campaigns.module';
import { CAMPAIGNS_PERMISSIONS } from './campaigns.permissions';
import { CAMPAIGNS_TABLES } from './infrastructure/exposed-tables';
import { CreateCampaignsTables1763800017001 } from './infrastructure/migrations/0001-create-campaigns-tables';
import { AddBroadcastRepliesAndAutoPause1763800017002 } from './infrastructure/migrations/0002-add-broadcast-replies-and-auto-pause';

export { CampaignsModule } from './campaigns.module';
export { CAMPAIGNS_TABLES } from './infrastructure/exposed-tables';
export { CAMPAIGNS_MANAGE } from './campaigns.permissions';
export { BroadcastPass, broadcastQueue, type HandOutOptions } from './application/broadcast-pass';
export { BroadcastsService } from './application/broadcasts.service';

export {
  CAMPAIGNS_EVENTS,
  BROADCAST_RESPONSE,
  CONTACT_OPTED_OUT,
  CONTACT_OPTED_IN,
  type BroadcastResponsePayload,
  type OptInChangePayload,
} from './application/campaigns-events';

export const campaignsMigrations: MigrationClass[] = [CreateCampaignsTables1763800017001, AddBroadcastRepliesAndAutoPause1763800017002];

// Campaigns as the composition sees it (docs/campaigns.md): segments written through the data API
// by their writer, recipients read-only there, broadcasts through /functions/v1/campaigns, the
// worker's hot queue that starts scheduled broadcasts and hands recipients to messaging's paced
// queue, the consumers of messaging's message outcomes, replies and keywords, and the events
// campaigns publish (broadcast.response, contact.opted_out, contact.opted_in).
export const campaignsManifest = defineContext({
  name: 'campaigns',
  module: CampaignsModule,
  migrations: campaignsMigrations,
  tables: [{ table: CAMPAIGNS_TABLES.segments, writer: SegmentsWriter }, { table: CAMPAIGNS_TABLES.recipients }],
  publishes: CAMPAIGNS_EVENTS,
  consumes: { events: [...OUTCOME_EVENTS, ...OPT_OUT_EVENTS.filter((contract) => !OUTCOME_EVENTS.includes(contract))] },
  jobs: { queues: [broadcastQueue] },
  permissions: CAMPAIGNS_PERMISSIONS,
});
