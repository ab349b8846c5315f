// Drip sequences' statements (docs/campaigns.md, "Drip sequences"). Contacts are read through the
// CRM's published view crm_campaign_contacts (the reader's row-level security applies).

export const INSERT_SEQUENCE = `
  INSERT INTO sequences (organization_id, name, channel_account_id, channel_kind, steps, exit_on, created_by, created_at, updated_at)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`;
export const INSERT_VERSION = `
  INSERT INTO sequence_versions (organization_id, sequence_id, version, steps, exit_on, created_at) VALUES (app_org_id(), $1, $2, $3, $4, $5)`;
// A draft's only version, changed in place (no enrolment can hold it yet).
export const REPLACE_DRAFT_VERSION = `UPDATE sequence_versions SET steps = $2, exit_on = $3 WHERE sequence_id = $1 AND version = 1`;
export const SEQUENCE_BY_ID = `SELECT * FROM sequences WHERE id = $1`;
export const SEQUENCE_FOR_UPDATE = `SELECT * FROM sequences WHERE id = $1 FOR UPDATE`;
export const UPDATE_SEQUENCE = `
  UPDATE sequences SET name = $2, steps = $3, exit_on = $4, version = $5, updated_at = $6 WHERE id = $1 RETURNING *`;
export const SET_SEQUENCE_STATUS = `
  UPDATE sequences SET status = $2,
    activated_at = CASE WHEN $2 = 'active' THEN $3 ELSE activated_at END,
    paused_at = CASE WHEN $2 = 'paused' THEN $3 ELSE paused_at END,
    updated_at = $3
  WHERE id = $1 RETURNING *`;
export const LIST_SEQUENCES = `
  SELECT * FROM sequences WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`;
export const COUNT_SEQUENCES = `SELECT count(*)::int AS n FROM sequences WHERE ($1::text IS NULL OR status = $1)`;
export const ENROLLMENT_COUNTS = `
  SELECT sequence_id, status, count(*)::int AS n FROM sequence_enrollments WHERE sequence_id = ANY ($1::uuid[]) GROUP BY sequence_id, status`;

// A paused sequence's running enrolments wait (paused) and leave the due index; activation resumes them.
export const PAUSE_ENROLLMENTS = `UPDATE sequence_enrollments SET status = 'paused', updated_at = $2 WHERE sequence_id = $1 AND status = 'active'`;
export const RESUME_ENROLLMENTS = `UPDATE sequence_enrollments SET status = 'active', updated_at = $2 WHERE sequence_id = $1 AND status = 'paused'`;

// An audience's contacts as enrolment sees them. :where is the data API's SQL over alias t.
export const enrollmentCandidates = (where: string) => `
  SELECT t.id, nullif(t.phones[1], '') AS phone, t.opt_in_status IS TRUE AS opted_in FROM crm_campaign_contacts t WHERE ${where}`;

// New enrolments ($4: contact ids, $5: their first step's time); a contact with a running enrolment
// of this sequence keeps it (the partial unique index), and is counted as already enrolled.
export const INSERT_ENROLLMENTS = `
  INSERT INTO sequence_enrollments (organization_id, sequence_id, version, contact_id, next_step_at, enrolled_at, created_at, updated_at)
  SELECT app_org_id(), $1, $2, n.contact_id, n.next_step_at, $3, $3, $3
  FROM unnest($4::uuid[], $5::timestamptz[]) AS n(contact_id, next_step_at)
  ON CONFLICT (sequence_id, contact_id) WHERE status IN ('active', 'paused') DO NOTHING
  RETURNING id`;

export const EXIT_BY_HAND = `
  UPDATE sequence_enrollments SET status = 'exited', exit_reason = 'manual', next_step_at = NULL, exited_at = $3, updated_at = $3
  WHERE id = $1 AND sequence_id = $2 AND status IN ('active', 'paused') RETURNING *`;
// Every running enrolment of a contact, by hand (a rule's stop_sequences).
export const EXIT_CONTACT = `
  UPDATE sequence_enrollments SET status = 'exited', exit_reason = 'manual', next_step_at = NULL, exited_at = $2, updated_at = $2
  WHERE contact_id = $1 AND status IN ('active', 'paused') RETURNING id`;
export const ENROLLMENT_BY_ID = `SELECT * FROM sequence_enrollments WHERE id = $1 AND sequence_id = $2`;

// System: active enrolments whose next step is due, across organizations, by the partial index
// sequence_enrollments_due_idx (the plan is checked in sequences.db.test.ts).
export const SYSTEM_DUE_STEPS = `
  SELECT id, organization_id FROM sequence_enrollments WHERE status = 'active' AND next_step_at <= $1 ORDER BY next_step_at LIMIT $2`;

// A due enrolment with what its step needs: its version's steps and exits, the sequence's account
// and status, and the contact as texts read it.
export const DUE_ENROLLMENT = `
  SELECT e.id, e.sequence_id, e.contact_id, e.status, e.current_step, e.next_step_at, v.steps, v.exit_on,
         s.status AS sequence_status, s.channel_account_id, s.channel_kind,
         to_jsonb(c) AS contact, nullif(c.phones[1], '') AS phone
  FROM sequence_enrollments e
  JOIN sequences s ON s.id = e.sequence_id
  JOIN sequence_versions v ON v.sequence_id = e.sequence_id AND v.version = e.version
  LEFT JOIN crm_campaign_contacts c ON c.id = e.contact_id
  WHERE e.id = $1`;

// The step's claim, in the transaction that stores its message: only for an enrolment still active
// at that step ($2) whose contact is still opted in, of a sequence still active (share-locked until
// the message is stored, so a pause waits for it). It moves the enrolment on ($4: the next step's
// time, null after the last step: completed) and writes the (enrolment, step) row, whose primary key
// makes a second claim of the same step impossible.
export const CLAIM_STEP = `
  WITH active_sequence AS (SELECT id FROM sequences WHERE id = $5 AND status = 'active' FOR SHARE),
  moved AS (
    UPDATE sequence_enrollments e SET current_step = $2::int + 1, next_step_at = $4::timestamptz, last_step_at = $3::timestamptz, updated_at = $3::timestamptz,
      status = CASE WHEN $4::timestamptz IS NULL THEN 'completed' ELSE 'active' END,
      completed_at = CASE WHEN $4::timestamptz IS NULL THEN $3::timestamptz END
    WHERE e.id = $1 AND e.status = 'active' AND e.current_step = $2::int AND e.sequence_id IN (SELECT id FROM active_sequence)
      AND EXISTS (SELECT 1 FROM crm_campaign_contacts c WHERE c.id = e.contact_id AND c.opt_in_status IS TRUE)
    RETURNING e.id, e.organization_id)
  INSERT INTO sequence_step_sends (organization_id, enrollment_id, step, handed_at)
  SELECT organization_id, id, $2::int, $3::timestamptz FROM moved
  ON CONFLICT (enrollment_id, step) DO NOTHING
  RETURNING enrollment_id`;
export const SET_STEP_MESSAGE = `UPDATE sequence_step_sends SET message_id = $3 WHERE enrollment_id = $1 AND step = $2`;

// The queue refused the step's message before storing it (an opted-out SMS number, a plan's limit):
// the step is recorded with the reason and the enrolment moves on.
export const REFUSED_STEP = `
  WITH moved AS (
    UPDATE sequence_enrollments SET current_step = $2::int + 1, next_step_at = $4::timestamptz, last_step_at = $3::timestamptz, updated_at = $3::timestamptz,
      status = CASE WHEN $4::timestamptz IS NULL THEN 'completed' ELSE 'active' END,
      completed_at = CASE WHEN $4::timestamptz IS NULL THEN $3::timestamptz END
    WHERE id = $1 AND status = 'active' AND current_step = $2::int RETURNING id, organization_id)
  INSERT INTO sequence_step_sends (organization_id, enrollment_id, step, error, handed_at)
  SELECT organization_id, id, $2::int, $5, $3::timestamptz FROM moved ON CONFLICT (enrollment_id, step) DO NOTHING`;

// Ends a running enrolment found unable to take its step (the contact opted out, was deleted, or has
// no phone any more).
export const EXIT_ONE = `
  UPDATE sequence_enrollments SET status = 'exited', exit_reason = $2, next_step_at = NULL, exited_at = $3, updated_at = $3
  WHERE id = $1 AND status IN ('active', 'paused')`;

// Exits by event: the contact's running enrolments ($1) whose version exits on it ($2: the exit_on
// key), of sequences on the account the event happened on ($3; null: any), enrolled before it ($5).
export const EXIT_BY_EVENT = `
  UPDATE sequence_enrollments e SET status = 'exited', exit_reason = $4, next_step_at = NULL, exited_at = $5::timestamptz, updated_at = now()
  FROM sequences s, sequence_versions v
  WHERE e.organization_id = app_org_id() AND e.contact_id = $1 AND e.status IN ('active', 'paused')
    AND s.id = e.sequence_id AND ($3::uuid IS NULL OR s.channel_account_id = $3)
    AND v.sequence_id = e.sequence_id AND v.version = e.version AND (v.exit_on ->> $2)::boolean IS TRUE
    AND e.enrolled_at <= $5::timestamptz
  RETURNING e.id`;
