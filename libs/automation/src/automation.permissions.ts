import { definePermission } from '@engage/shared-kernel';

// Rules and bot flows are written (and flows published) by OWNER and ADMIN; every member reads them
// and their runs and sessions, may test a rule and stop a bot session.
export const AUTOMATION_RULES_MANAGE = definePermission('automation.rules.manage', ['OWNER', 'ADMIN']);
export const AUTOMATION_BOTS_MANAGE = definePermission('automation.bots.manage', ['OWNER', 'ADMIN']);
export const AUTOMATION_PERMISSIONS = [AUTOMATION_RULES_MANAGE, AUTOMATION_BOTS_MANAGE];
