import { definePermission } from '@engage/shared-kernel';

export const WEBHOOKS_MANAGE = definePermission('webhooks.manage', ['OWNER', 'ADMIN']);
export const WEBHOOKS_PERMISSIONS = [WEBHOOKS_MANAGE];
