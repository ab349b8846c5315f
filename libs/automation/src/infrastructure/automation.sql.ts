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

// system: up to $2 runs started before $1, of every organization (the retention purge); a run
// still waiting to go on is kept until it is done.
export const PURGE_RUNS = `
  DELETE FROM automation_runs WHERE id IN (
    SELECT id FROM automation_runs WHERE started_at < $1 AND status <> 'waiting' ORDER BY started_at LIMIT $2)`;

// The rule engine's read: the organization's active rules of the events $1, in the order they run.
export const ACTIVE_RULES_OF_EVENTS = `
  SELECT id, name, event, conditions, actions, action_secrets FROM automation_rules
  WHERE is_active AND event = ANY($1::text[]) ORDER BY position, created_at, id`;

// The claim of a run: one per rule and event, whatever process gets there first (none when another
// did). `running` until FINISH_RUN; a loop-guarded run is inserted finished, as skipped.
export const CLAIM_RUN = `
  INSERT INTO automation_runs (organization_id, rule_id, event, event_id, subject_type, subject_id, status, skip_reason, depth, started_at, finished_at, claimed_at)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6::text, $7, $8, $9::timestamptz, CASE WHEN $6::text = 'running' THEN NULL ELSE $9::timestamptz END, $9::timestamptz)
  ON CONFLICT (organization_id, rule_id, event_id) DO NOTHING RETURNING id`;

// A run's stored actions, locked while its actions' outcomes are written (the engine's and the
// webhook deliveries' writes to one run follow one another).
export const RUN_FOR_UPDATE = `SELECT status, actions FROM automation_runs WHERE id = $1 FOR UPDATE`;

// A run whose actions stopped at the end: its outcome, or `delivering` (not yet finished) while a
// webhook of it is being delivered.
export const FINISH_RUN = `
  UPDATE automation_runs SET status = $2, actions = $3, finished_at = CASE WHEN $2::text = 'delivering' THEN NULL ELSE $4::timestamptz END,
    resume_at = NULL WHERE id = $1`;

// A run paused by a wait action: the actions so far, and when the rest is due.
export const PAUSE_RUN = `UPDATE automation_runs SET status = 'waiting', actions = $2, resume_at = $3 WHERE id = $1`;

// A webhook delivery's outcome written into its run's actions (the run's status unchanged).
export const SET_RUN_ACTIONS = `UPDATE automation_runs SET actions = $2 WHERE id = $1`;

// A webhook delivery's look before its attempt: the action as stored.
export const RUN_ACTION = `SELECT status, actions->$2::int AS action FROM automation_runs WHERE id = $1`;

// system: up to $2 waiting runs due at $1, across organizations.
export const DUE_WAITS = `
  SELECT id, organization_id FROM automation_runs WHERE status = 'waiting' AND resume_at <= $1 ORDER BY resume_at, id LIMIT $2`;

// The claim of a waiting run's resumption: one process takes it back to running.
export const RESUME_RUN = `
  UPDATE automation_runs SET status = 'running', resume_at = NULL, claimed_at = $2 WHERE id = $1 AND status = 'waiting'
  RETURNING id, rule_id, event, event_id, subject_type, subject_id, depth, actions, started_at`;

// The member a rule's last round-robin assignment went to (its latest run that made one).
export const LAST_ROUND_ROBIN = `
  SELECT coalesce(a->'result'->>'assignee_id', a->'result'->>'owner_id') AS assignee_id FROM automation_runs r, jsonb_array_elements(r.actions) a
  WHERE r.rule_id = $1 AND a->>'type' = $2 AND a->'result'->>'round_robin' = 'true'
  ORDER BY r.started_at DESC, r.id DESC LIMIT 1`;

// A conversation's timer armed at $3: a new episode, unless one is open or a later reply ended the
// last one (an older event delivered again).
export const ARM_TIMER = `
  INSERT INTO automation_timers (organization_id, conversation_id, kind, episode_id, started_at)
  VALUES (app_org_id(), $1, $2, gen_random_uuid(), $3)
  ON CONFLICT (organization_id, conversation_id, kind) DO UPDATE
    SET episode_id = EXCLUDED.episode_id, started_at = EXCLUDED.started_at, fired_rule_ids = '{}'
  WHERE automation_timers.started_at IS NULL AND (automation_timers.ended_at IS NULL OR automation_timers.ended_at < EXCLUDED.started_at)`;

// A conversation's timer ended by a reply at $3: the open episode (one that started before the
// reply) ends; ended_at keeps the latest reply.
export const END_TIMER = `
  INSERT INTO automation_timers (organization_id, conversation_id, kind, ended_at) VALUES (app_org_id(), $1, $2, $3)
  ON CONFLICT (organization_id, conversation_id, kind) DO UPDATE
    SET episode_id = NULL, started_at = NULL, fired_rule_ids = '{}', ended_at = EXCLUDED.ended_at
  WHERE coalesce(automation_timers.started_at, automation_timers.ended_at, '-infinity') <= EXCLUDED.ended_at`;

// system: up to $2 (episode, rule) pairs due at $1, across organizations: an open episode whose
// rule's minutes have passed, that became due after the rule was last saved, not yet fired for it.
export const DUE_TIMERS = `
  SELECT t.organization_id, t.conversation_id, t.kind, t.episode_id, r.id AS rule_id, d.due_at
  FROM automation_rules r
  CROSS JOIN LATERAL (SELECT make_interval(mins => (r.event_options->>'minutes')::int) AS span) m
  JOIN automation_timers t ON t.organization_id = r.organization_id AND t.kind = r.event
    AND t.started_at BETWEEN r.updated_at - m.span AND $1::timestamptz - m.span
  CROSS JOIN LATERAL (SELECT t.started_at + m.span AS due_at) d
  WHERE r.is_active AND r.event IN ('conversation.unanswered', 'conversation.customer_silent') AND NOT (r.id = ANY (t.fired_rule_ids))
  ORDER BY d.due_at, r.id LIMIT $2`;

// The claim of a timer rule's firing on an episode: one process adds the rule, the others find it.
export const CLAIM_TIMER = `
  UPDATE automation_timers SET fired_rule_ids = array_append(fired_rule_ids, $4::uuid)
  WHERE conversation_id = $1 AND kind = $2 AND episode_id = $3 AND NOT ($4::uuid = ANY (fired_rule_ids))
  RETURNING episode_id`;

// Whether a timer's episode is still open (a waiting run of a timer rule goes on only then).
export const EPISODE_OPEN = `SELECT 1 FROM automation_timers WHERE episode_id = $1`;

// One active rule of an event (a timer rule firing, a waiting run resuming).
export const ACTIVE_RULE = `
  SELECT id, name, event, conditions, actions, action_secrets, updated_at FROM automation_rules WHERE is_active AND id = $1`;

// system: runs of every organization still running though claimed before $1 (their process
// stopped mid-run), up to $3 at a time, finished as failed (interrupted) at $2.
export const FINISH_INTERRUPTED = `
  UPDATE automation_runs SET status = 'failed', skip_reason = 'interrupted', finished_at = $2
  WHERE id IN (SELECT id FROM automation_runs WHERE status = 'running' AND claimed_at < $1 ORDER BY claimed_at LIMIT $3 FOR UPDATE SKIP LOCKED)
    AND status = 'running'`;
