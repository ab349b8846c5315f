import { CreatePlatformTables1763800000001 } from './0001-create-platform-tables';
import { GrantTenantSequences1763800000002 } from './0002-grant-tenant-sequences';

export const platformMigrations = [CreatePlatformTables1763800000001, GrantTenantSequences1763800000002];
