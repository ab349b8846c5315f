import { tableDefinition } from '@engage/platform';
import { CALL_RECORDS } from '../domain/call-record';

// Call records through the data API, read-only (reads follow row-level security): they are written
// by /call-recording and the processing pipeline only.
export const CALL_TABLES = {
  callRecords: tableDefinition(CALL_RECORDS, {
    foreignKeys: [
      { name: 'call_records_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
      { name: 'call_records_agent_fkey', column: 'agent_user_id', references: { table: 'profiles', column: 'id' } },
    ],
  }),
};
