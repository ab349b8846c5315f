import { tableDefinition } from '@engage/platform';
import { BOT_FLOW_VERSIONS, BOT_FLOWS, BOT_SESSIONS } from '../domain/tables';

// Flows are written through the data API by OWNER and ADMIN only (the writer checks them); their
// versions and the sessions are read-only there (405), written by publishing and the runtime.
const flow = { name: 'bot_flows_id_fkey', column: 'bot_flow_id', references: { table: 'bot_flows', column: 'id' } };
export const BOT_TABLES = {
  flows: tableDefinition(BOT_FLOWS, { writable: true, writeRoles: ['OWNER', 'ADMIN'] }),
  versions: tableDefinition(BOT_FLOW_VERSIONS, { foreignKeys: [{ ...flow, name: 'bot_flow_versions_flow_fkey' }] }),
  sessions: tableDefinition(BOT_SESSIONS, { foreignKeys: [{ ...flow, name: 'bot_sessions_flow_fkey' }] }),
};
