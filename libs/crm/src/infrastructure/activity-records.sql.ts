import { namedColumns } from '@engage/platform';
import { NOTES, TASKS } from './crm-columns';

// SQL of tasks and notes (inside Database.inTenant: row-level security applies). Writes name their
// columns from the declarations (TASKS, NOTES): parameters follow TASK_WRITE's and NOTE_WRITE's
// names, read from the fields by name (`.values`), never by position.

export const TASK_WRITE = namedColumns(TASKS, ['title', 'description', 'due_at', 'assignee_id', 'done', 'contact_id', 'company_id', 'deal_id']);
export const NOTE_WRITE = namedColumns(NOTES, ['body', 'contact_id', 'company_id', 'deal_id']);
const T = TASK_WRITE;
const N = NOTE_WRITE;
const TASK_CREATOR = `$${T.names.length + 1}`;
const NOTE_AUTHOR = `$${N.names.length + 1}`;

// done_at is set with the first completion and kept while the task stays done.
export const INSERT_TASK = `
  INSERT INTO tasks (organization_id, ${T.list}, done_at, created_by)
  VALUES (app_org_id(), ${T.placeholders(1)}, CASE WHEN ${T.placeholderOf('done', 1)}::boolean THEN now() END, ${TASK_CREATOR})
  RETURNING *`;

export const TASK_FOR_UPDATE = `SELECT * FROM tasks WHERE id = $1 FOR UPDATE`;

// $1 the id, then the fields.
export const UPDATE_TASK = `
  UPDATE tasks SET ${T.assignments(2)},
         done_at = CASE WHEN NOT ${T.placeholderOf('done', 2)}::boolean THEN NULL ELSE coalesce(done_at, now()) END, updated_at = now()
  WHERE id = $1 RETURNING *`;

export const INSERT_NOTE = `
  INSERT INTO notes (organization_id, ${N.list}, author_id)
  VALUES (app_org_id(), ${N.placeholders(1)}, ${NOTE_AUTHOR})
  RETURNING *`;

export const NOTE_FOR_UPDATE = `SELECT * FROM notes WHERE id = $1 FOR UPDATE`;

// $1 the id, then the fields.
export const UPDATE_NOTE = `
  UPDATE notes SET ${N.assignments(2)}, updated_at = now()
  WHERE id = $1 RETURNING *`;
