import { CreatePlatformTables1763800000001 } from './0001-create-platform-tables';
import { GrantTenantSequences1763800000002 } from './0002-grant-tenant-sequences';
import { OutboxFillfactor1763800000003 } from './0003-outbox-fillfactor';
import { CreateJobs1763800000004 } from './0004-create-jobs';
import { CreateWriteBlockHook1763800000005 } from './0005-create-write-block-hook';
import { AddOutboxCause1763800000006 } from './0006-add-outbox-cause';

export const platformMigrations = [
  CreatePlatformTables1763800000001,
  GrantTenantSequences1763800000002,
  OutboxFillfactor1763800000003,
  CreateJobs1763800000004,
  CreateWriteBlockHook1763800000005,
  AddOutboxCause1763800000006,
];
