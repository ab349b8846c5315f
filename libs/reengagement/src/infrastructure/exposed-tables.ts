import { tableDefinition } from '@engage/platform';
import { REENGAGEMENT_CONVERSATIONS, REENGAGEMENT_NUDGES } from '../domain/nudge';

// Nudges and the per-conversation state through the data API, read-only (row-level security): they
// are written by the scheduler and the re-engagement endpoints only.
export const REENGAGEMENT_TABLES = {
  nudges: tableDefinition(REENGAGEMENT_NUDGES, {
    foreignKeys: [
      { name: 'reengagement_nudges_conversation_fkey', column: 'conversation_id', references: { table: 'conversations', column: 'id' } },
      { name: 'reengagement_nudges_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    ],
  }),
  conversations: tableDefinition(REENGAGEMENT_CONVERSATIONS, {
    foreignKeys: [{ name: 'reengagement_conversations_conversation_fkey', column: 'conversation_id', references: { table: 'conversations', column: 'id' } }],
  }),
};
