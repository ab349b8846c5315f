import { tableDefinition } from '@engage/platform';
import { AUTOMATION_RULES, AUTOMATION_RUNS } from '../domain/tables';

// Rules are written through the data API by OWNER and ADMIN only (the writer checks them); runs are
// read-only there (405), written by the rule engine.
export const AUTOMATION_TABLES = {
  rules: tableDefinition(AUTOMATION_RULES, { writable: true, writeRoles: ['OWNER', 'ADMIN'] }),
  runs: tableDefinition(AUTOMATION_RUNS, {
    foreignKeys: [{ name: 'automation_runs_rule_fkey', column: 'rule_id', references: { table: 'automation_rules', column: 'id' } }],
  }),
};
