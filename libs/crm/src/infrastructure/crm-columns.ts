import { column, COMMON_COLUMNS, declareTable } from '@engage/shared-kernel';

// The columns of the CRM's other served tables, declared once (contacts, companies and deals are
// declared with their rules in domain/). These are written by the CRM's services (tasks and notes
// with their own rules, domain/activity-records.ts) or only read; the declaration gives the data
// API its column list and the schema test what to compare with the database.

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const write = { api: 'write' } as const;
const writeOrNull = { api: 'write', nullable: true } as const;

export const PIPELINES = declareTable({
  name: 'pipelines',
  columns: { id: uuid, organization_id: uuid, name: text, is_default: column('boolean'), created_at: at },
});

export const PIPELINE_STAGES = declareTable({
  name: 'pipeline_stages',
  columns: {
    id: uuid,
    organization_id: uuid,
    pipeline_id: uuid,
    key: text,
    name: text,
    color: text,
    position: column('integer'),
    default_probability: column('integer', { nullable: true }),
    outcome: text,
  },
});

export const DEAL_STAGE_HISTORY = declareTable({
  name: 'deal_stage_history',
  columns: { id: column('bigint'), organization_id: uuid, deal_id: uuid, from_stage: textOrNull, to_stage: text, changed_by: uuidOrNull, changed_at: at },
});

export const DEAL_OWNER_HISTORY = declareTable({
  name: 'deal_owner_history',
  columns: {
    id: column('bigint'),
    organization_id: uuid,
    deal_id: uuid,
    owner_id: uuidOrNull,
    started_at: at,
    ended_at: atOrNull,
    duration_seconds: column('bigint', { nullable: true }),
    reason: text,
    changed_by: uuidOrNull,
  },
});

export const TASKS = declareTable({
  name: 'tasks',
  columns: {
    id: uuid,
    organization_id: uuid,
    title: column('text', write),
    description: column('text', write),
    due_at: column('timestamptz', writeOrNull),
    assignee_id: column('uuid', writeOrNull),
    done: column('boolean', write),
    done_at: atOrNull,
    contact_id: column('uuid', writeOrNull),
    company_id: column('uuid', writeOrNull),
    deal_id: column('uuid', writeOrNull),
    created_by: uuidOrNull,
    created_at: at,
    updated_at: at,
  },
});

export const NOTES = declareTable({
  name: 'notes',
  columns: {
    id: uuid,
    organization_id: uuid,
    body: column('text', write),
    author_id: uuidOrNull,
    contact_id: column('uuid', writeOrNull),
    company_id: column('uuid', writeOrNull),
    deal_id: column('uuid', writeOrNull),
    created_at: at,
    updated_at: at,
  },
});

// Written by the CRM's event consumer only.
export const TIMELINE_ENTRIES = declareTable({
  name: 'timeline_entries',
  columns: {
    id: uuid,
    organization_id: uuid,
    event_id: uuid,
    type: text,
    source: text,
    occurred_at: at,
    actor_id: uuidOrNull,
    contact_id: uuidOrNull,
    deal_id: uuidOrNull,
    company_id: uuidOrNull,
    summary: text,
    data: column('jsonb'),
    created_at: at,
  },
});
