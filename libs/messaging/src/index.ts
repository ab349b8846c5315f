import { defineContext, type MigrationClass } from '@engage/platform';
import { MESSAGING_TABLES as T } from './infrastructure/exposed-tables';
import { MessagingModule } from './messaging.module';
import { MESSAGING_SETTINGS } from './messaging.settings';
import { messagingJobs, messagingQueues, messagingSchedules } from './application/messaging-schedules';
import { MESSAGING_EVENTS } from './application/messaging-events';
import { CreateMessagingTables1763800003001 } from './infrastructure/migrations/0001-create-messaging-tables';
import { IndexPendingMessages1763800003002 } from './infrastructure/migrations/0002-index-pending-messages';
import { InboundEventsWithoutLocks1763800003003 } from './infrastructure/migrations/0003-inbound-events-without-locks';
import { ChannelAdapters1763800003004 } from './infrastructure/migrations/0004-channel-adapters';
import { SmsChannels1763800003006 } from './infrastructure/migrations/0006-sms-channels';
import { ConversationReplyWindows1763800003010 } from './infrastructure/migrations/0010-conversation-reply-windows';
import { PublishAnalyticsReadViews1763800003020 } from './infrastructure/migrations/0020-publish-analytics-read-views';
import { PublishChannelAccounts1763800003030 } from './infrastructure/migrations/0030-publish-channel-accounts';
import { RecordFactChanges1763800003040 } from './infrastructure/migrations/0040-record-fact-changes';
import { RecordMessageOrigins1763800003050 } from './infrastructure/migrations/0050-record-message-origins';
import { ScheduledMessages1763800003060 } from './infrastructure/migrations/0060-scheduled-messages';
import { PacedOutboundQueue1763800003070 } from './infrastructure/migrations/0070-paced-outbound-queue';
import { SCHEDULED_MESSAGES_MANAGE } from './outbound/scheduled-messages';
import { OUTBOUND_QUEUE_MANAGE } from './outbound/outbound-queue';
import { EmailChannel1763800003005 } from './infrastructure/migrations/0005-email-channel';

export { MessagingModule } from './messaging.module';
export { SendService } from './channels/chat-app/send.service';
export { PendingSendSweeper } from './outbound/pending-send.sweeper';
export { ConversationService } from './conversations/conversation.service';
// The contact's open conversation on an account, found or created in the caller's transaction (a
// `resolve` destination of OutboundDispatcher.enqueue: campaigns store their checkpoint beside the message).
export { upsertConversation } from './conversations/conversation-store';
// Commands on the command bus for other contexts' changes to conversations (automation's actions).
export { SetConversationStatus, AssignConversation } from './conversations/conversation-commands';
// The one way a message leaves the service (docs/messaging.md, "One outbound path").
export { OutboundDispatcher, SendFailed, type SendOutcome, type Destination, type Dispatched } from './outbound/dispatcher';
export type { OutboundSend } from './outbound/channel-adapter.port';
// Automated messages through the paced queue, sent at once when the account's pacing allows.
export { PacedSender, type PacedOutcome } from './outbound/paced-sender';
export { OutboundQueueWorker } from './outbound/queue.worker';
// Withdrawing an origin's messages still waiting in the paced queue (a paused or cancelled broadcast).
export { withdrawQueued, type QueuedOrigin } from './outbound/withdraw-queued';
// The queue's rule for a recipient's time zone, and the zone clock it reads (campaigns time sequence steps by it).
export { recipientTimeZone, wallClockMs, instantsOfWallClock } from './outbound/pacing-time-zone';
export { MESSAGING_PROVIDER, type MessagingProvider } from './channels/chat-app/messaging-provider.port';
export { ProviderError, type ProviderResult } from './outbound/provider-result';
export { providerBody, planCalls, type ProviderBody } from './channels/chat-app/provider-calls';
// Who wrote a message (messages.origin, origin_id).
export { MESSAGE_ORIGINS, AGENT_REPLY_ORIGINS, type MessageOrigin, type MessageAuthor } from './domain/message-origin';

export const messagingMigrations: MigrationClass[] = [
  CreateMessagingTables1763800003001,
  IndexPendingMessages1763800003002,
  InboundEventsWithoutLocks1763800003003,
  ChannelAdapters1763800003004,
  EmailChannel1763800003005,
  SmsChannels1763800003006,
  // The published read re-engagement selects conversations through (docs/reengagement.md).
  ConversationReplyWindows1763800003010,
  PublishAnalyticsReadViews1763800003020,
  PublishChannelAccounts1763800003030,
  RecordFactChanges1763800003040,
  // Who wrote each message: origin and origin_id (docs/messaging.md, "Who wrote a message").
  RecordMessageOrigins1763800003050,
  // Scheduled sends, and their cancel on a customer's reply (docs/messaging.md, "Scheduled sends").
  ScheduledMessages1763800003060,
  // The paced send queue: QUEUED messages, their expected time, and each account's pacing and pause.
  PacedOutboundQueue1763800003070,
];

// Messaging as the composition sees it. Its tables are read-only through the data API: writes go
// through the messaging endpoints.
export const messagingManifest = defineContext({
  name: 'messaging',
  module: MessagingModule,
  migrations: messagingMigrations,
  tables: [{ table: T.channelAccounts }, { table: T.conversations }, { table: T.messages }, { table: T.scheduledMessages }],
  publishes: MESSAGING_EVENTS,
  consumes: {},
  settings: MESSAGING_SETTINGS,
  jobs: { jobs: messagingJobs, schedules: messagingSchedules, queues: messagingQueues },
  permissions: [SCHEDULED_MESSAGES_MANAGE, OUTBOUND_QUEUE_MANAGE],
});
export { messagingQueues, messagingSchedules } from './application/messaging-schedules';
export { MESSAGING_SETTINGS } from './messaging.settings';
export {
  MESSAGING_EVENTS,
  MESSAGE_RECEIVED,
  MESSAGE_SENT,
  MESSAGE_FAILED,
  MESSAGE_DELIVERED,
  MESSAGE_READ,
  MESSAGE_FIELDS,
  type CampaignReplyTarget,
  CONVERSATION_STATUS_CHANGED,
  type MessagePayload,
  type ConversationPayload,
} from './application/messaging-events';
// Drives inbound processing where no worker runs (tests of other contexts).
export { InboundProcessor } from './inbound/inbound-processor';
// Scheduled sends ("send later"): who may write them, and the pass that sends them.
export { SCHEDULED_MESSAGES_MANAGE, type ScheduledMessageView } from './outbound/scheduled-messages';
// The paced queue's controls: who may change an account's pacing or pause it.
export { OUTBOUND_QUEUE_MANAGE } from './outbound/outbound-queue';
export { ScheduledSendPass } from './outbound/scheduled-send.job';
