import { CreatePlatformTables1763800000001 } from './0001-create-platform-tables';

export const platformMigrations = [CreatePlatformTables1763800000001];
