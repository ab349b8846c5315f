import type { MigrationClass } from '@engage/platform';
import { CreateMessagingTables1763800003001 } from './infrastructure/migrations/0001-create-messaging-tables';
import { IndexPendingMessages1763800003002 } from './infrastructure/migrations/0002-index-pending-messages';
import { InboundEventsWithoutLocks1763800003003 } from './infrastructure/migrations/0003-inbound-events-without-locks';

export { MessagingModule } from './messaging.module';
export { SendService, type SendOutcome } from './application/send.service';
export { PendingSendSweeper } from './application/pending-send.sweeper';
export { MESSAGING_PROVIDER, type MessagingProvider, ProviderError, type ProviderResult } from './application/messaging-provider.port';
export { providerBody, planCalls, type ProviderBody } from './domain/provider-calls';

export const messagingMigrations: MigrationClass[] = [CreateMessagingTables1763800003001, IndexPendingMessages1763800003002, InboundEventsWithoutLocks1763800003003];
export { MESSAGING_TABLES } from './infrastructure/exposed-tables';
export { messagingSchedules } from './application/messaging-schedules';
