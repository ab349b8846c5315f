import { column, COMMON_COLUMNS, declareTable, type RowOf } from '@engage/shared-kernel';

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const write = { api: 'write' } as const;

// Rules, written through /rest/v1/automation_rules by OWNER and ADMIN (checked by the rule
// validator), read by every member. A webhook action's secret is served masked (`****abcd`); the
// sealed secrets, one entry per action (null for the others), are not served at all.
export const AUTOMATION_RULES = declareTable({
  name: 'automation_rules',
  columns: {
    id: uuid,
    organization_id: uuid,
    name: column('text', write),
    description: column('text', write),
    event: column('text', write),
    event_options: column('jsonb', write),
    conditions: column('jsonb', write),
    actions: column('jsonb', write),
    action_secrets: column('jsonb', { api: 'hidden' }),
    is_active: column('boolean', write),
    position: column('integer', write),
    created_by: uuidOrNull,
    created_at: at,
    updated_at: at,
  },
});

// `running`: claimed by the engine, its actions under way (no finished_at yet); `waiting`: paused by
// a wait action until resume_at.
export const RUN_STATUSES = ['running', 'waiting', 'delivering', 'succeeded', 'failed', 'partially_failed', 'skipped'] as const;
export const ACTION_RUN_STATUSES = ['succeeded', 'failed', 'skipped'] as const;

// One row per run whose conditions matched (or that was skipped, with the reason), written by the
// rule engine; read-only through the data API.
export const AUTOMATION_RUNS = declareTable({
  name: 'automation_runs',
  columns: {
    id: uuid,
    organization_id: uuid,
    rule_id: uuid,
    event: text,
    event_id: uuid,
    subject_type: text,
    subject_id: uuid,
    status: text,
    skip_reason: textOrNull,
    actions: column('jsonb'),
    depth: column('integer'),
    started_at: at,
    finished_at: atOrNull,
    resume_at: atOrNull,
    // When a pass claimed the run (a run `running` long after it is finished as interrupted); not served.
    claimed_at: column('timestamptz', { nullable: true, api: 'hidden' }),
  },
});

export type RuleRow = RowOf<typeof AUTOMATION_RULES>;
