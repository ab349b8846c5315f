import type { MigrationClass } from '@engage/platform';
import { CreateMessagingTables1763800003001 } from './infrastructure/migrations/0001-create-messaging-tables';

export { MessagingModule } from './messaging.module';
export { SendService, type SendOutcome } from './application/send.service';
export { MESSAGING_PROVIDER, type MessagingProvider, ProviderError, type ProviderResult } from './application/messaging-provider.port';
export { providerBody, planCalls, type ProviderBody } from './domain/provider-calls';

export const messagingMigrations: MigrationClass[] = [CreateMessagingTables1763800003001];
export { MESSAGING_TABLES } from './infrastructure/exposed-tables';
