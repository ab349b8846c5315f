// SQL of the automation context; every statement runs inside inTenant (row-level security).

export const INSERT_RULE = `
  INSERT INTO automation_rules (organization_id, name, description, event, event_options, conditions, actions, action_secrets, is_active, position, created_by)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`;

export const RULE_BY_ID = `SELECT * FROM automation_rules WHERE id = $1`;

export const RULE_FOR_UPDATE = `SELECT * FROM automation_rules WHERE id = $1 FOR UPDATE`;

export const UPDATE_RULE = `
  UPDATE automation_rules SET name = $2, description = $3, event = $4, event_options = $5, conditions = $6, actions = $7,
    action_secrets = $8, is_active = $9, position = $10, updated_at = now()
  WHERE id = $1 RETURNING *`;

export const DELETE_RULE = `DELETE FROM automation_rules WHERE id = $1`;

// system: up to $2 runs started before $1, of every organization (the retention purge).
export const PURGE_RUNS = `
  DELETE FROM automation_runs WHERE id IN (SELECT id FROM automation_runs WHERE started_at < $1 ORDER BY started_at LIMIT $2)`;
