import { tableDefinition } from '@engage/platform';
import { CAMPAIGNS_MANAGE } from '../campaigns.permissions';
import { BROADCAST_RECIPIENTS, SEGMENTS } from '../domain/tables';

// Segments are written through the data API by the roles that manage campaigns (the writer checks
// the filter); recipients are read-only there (405), written when a broadcast starts.
export const CAMPAIGNS_TABLES = {
  segments: tableDefinition(SEGMENTS, { writable: true, writeRoles: CAMPAIGNS_MANAGE.roles }),
  recipients: tableDefinition(BROADCAST_RECIPIENTS, {
    foreignKeys: [{ name: 'broadcast_recipients_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } }],
  }),
};
