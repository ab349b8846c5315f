import { definePermission } from '@engage/shared-kernel';

// Rules are written by OWNER and ADMIN; every member reads them and their runs, and may test one.
export const AUTOMATION_RULES_MANAGE = definePermission('automation.rules.manage', ['OWNER', 'ADMIN']);
export const AUTOMATION_PERMISSIONS = [AUTOMATION_RULES_MANAGE];
