import { tableDefinition } from '@engage/platform';
import { CAMPAIGNS_MANAGE } from '../campaigns.permissions';
import { BROADCAST_RECIPIENTS, SEGMENTS } from '../domain/tables';
import { SEQUENCE_ENROLLMENTS, SEQUENCES } from '../domain/sequence-tables';

// Segments are written through the data API by the roles that manage campaigns (the writer checks
// the filter); recipients, sequences and enrolments are read-only there (405), written by the
// campaigns' endpoints and worker.
export const CAMPAIGNS_TABLES = {
  segments: tableDefinition(SEGMENTS, { writable: true, writeRoles: CAMPAIGNS_MANAGE.roles }),
  recipients: tableDefinition(BROADCAST_RECIPIENTS, {
    foreignKeys: [{ name: 'broadcast_recipients_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } }],
  }),
  sequences: tableDefinition(SEQUENCES),
  enrollments: tableDefinition(SEQUENCE_ENROLLMENTS, {
    foreignKeys: [
      { name: 'sequence_enrollments_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
      { name: 'sequence_enrollments_sequence_fkey', column: 'sequence_id', references: { table: 'sequences', column: 'id' } },
    ],
  }),
};
