import { definePermission } from '@engage/shared-kernel';

// Segments and broadcasts are written (and broadcasts started, paused, cancelled) by OWNER and ADMIN;
// every member (and the API key) reads them and previews audiences and texts.
export const CAMPAIGNS_MANAGE = definePermission('campaigns.manage', ['OWNER', 'ADMIN']);
export const CAMPAIGNS_PERMISSIONS = [CAMPAIGNS_MANAGE];
