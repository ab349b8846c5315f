import { definePermission } from '@engage/shared-kernel';

// Segments, broadcasts and sequences are written (broadcasts started, paused, cancelled; sequences
// activated, paused, enrolled into and exited) by OWNER and ADMIN; every member (and the API key)
// reads them and previews audiences and texts.
export const CAMPAIGNS_MANAGE = definePermission('campaigns.manage', ['OWNER', 'ADMIN']);
export const CAMPAIGNS_PERMISSIONS = [CAMPAIGNS_MANAGE];
