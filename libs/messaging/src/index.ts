import type { MigrationClass } from '@engage/platform';

export { MessagingModule } from './messaging.module';

export const messagingMigrations: MigrationClass[] = [];
