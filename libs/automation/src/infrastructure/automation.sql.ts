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

// The rule engine's read: the organization's active rules of an event, in the order they run.
export const ACTIVE_RULES_OF_EVENT = `
  SELECT id, name, event, conditions, actions, action_secrets FROM automation_rules
  WHERE is_active AND event = $1 ORDER BY position, created_at, id`;

// The claim of a run: one per rule and event, whatever process gets there first (none when another
// did). `running` until FINISH_RUN; a loop-guarded run is inserted finished, as skipped.
export const CLAIM_RUN = `
  INSERT INTO automation_runs (organization_id, rule_id, event, event_id, subject_type, subject_id, status, skip_reason, depth, started_at, finished_at)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6::text, $7, $8, $9::timestamptz, CASE WHEN $6::text = 'running' THEN NULL ELSE $9::timestamptz END)
  ON CONFLICT (organization_id, rule_id, event_id) DO NOTHING RETURNING id`;

export const FINISH_RUN = `UPDATE automation_runs SET status = $2, actions = $3, finished_at = $4 WHERE id = $1`;

// The member a rule's last round-robin assignment went to (its latest run that made one).
export const LAST_ROUND_ROBIN = `
  SELECT coalesce(a->'result'->>'assignee_id', a->'result'->>'owner_id') AS assignee_id FROM automation_runs r, jsonb_array_elements(r.actions) a
  WHERE r.rule_id = $1 AND a->>'type' = $2 AND a->'result'->>'round_robin' = 'true'
  ORDER BY r.started_at DESC, r.id DESC LIMIT 1`;
