// SQL of tasks and notes (inside Database.inTenant: row-level security applies).

export const INSERT_TASK = `
  INSERT INTO tasks (organization_id, title, description, due_at, assignee_id, done, done_at, contact_id, company_id, deal_id, created_by)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, CASE WHEN $5 THEN now() END, $6, $7, $8, $9)
  RETURNING *`;

export const TASK_FOR_UPDATE = `SELECT * FROM tasks WHERE id = $1 FOR UPDATE`;

// done_at keeps the first completion time while the task stays done.
export const UPDATE_TASK = `
  UPDATE tasks SET title = $2, description = $3, due_at = $4, assignee_id = $5, done = $6,
         done_at = CASE WHEN NOT $6 THEN NULL ELSE coalesce(done_at, now()) END,
         contact_id = $7, company_id = $8, deal_id = $9, updated_at = now()
  WHERE id = $1 RETURNING *`;

export const INSERT_NOTE = `
  INSERT INTO notes (organization_id, body, author_id, contact_id, company_id, deal_id)
  VALUES (app_org_id(), $1, $2, $3, $4, $5)
  RETURNING *`;

export const NOTE_FOR_UPDATE = `SELECT * FROM notes WHERE id = $1 FOR UPDATE`;

export const UPDATE_NOTE = `
  UPDATE notes SET body = $2, contact_id = $3, company_id = $4, deal_id = $5, updated_at = now()
  WHERE id = $1 RETURNING *`;
