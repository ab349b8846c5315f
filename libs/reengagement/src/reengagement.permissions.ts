import { definePermission } from '@engage/shared-kernel';

export const REENGAGEMENT_CONFIGURE = definePermission('reengagement.configure', ['OWNER', 'ADMIN']);
// With approval mode on, agents approve, edit or skip the drafts (§3).
export const REENGAGEMENT_DRAFTS_REVIEW = definePermission('reengagement.drafts.review', ['OWNER', 'ADMIN', 'AGENT']);
export const REENGAGEMENT_PERMISSIONS = [REENGAGEMENT_CONFIGURE, REENGAGEMENT_DRAFTS_REVIEW];
