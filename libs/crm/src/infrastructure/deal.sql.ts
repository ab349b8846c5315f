// SQL of pipelines and deals (inside Database.inTenant).

export interface StageRow {
  id: string;
  pipeline_id: string;
  key: string;
  name: string;
  color: string;
  position: number;
  default_probability: number | null;
  outcome: 'open' | 'won' | 'lost';
}

export interface DealRow {
  id: string;
  organization_id: string;
  title: string;
  description: string;
  pipeline_id: string;
  stage_id: string;
  stage: string;
  contact_id: string | null;
  company_id: string | null;
  owner_id: string | null;
  value: number;
  currency: string;
  probability: number;
  priority: string;
  source: string;
  expected_close_date: string | null;
  notes: string;
  tags: string[];
  custom_fields: Record<string, unknown>;
  position: number;
  last_activity_at: Date;
  created_at: Date;
  updated_at: Date;
}

export const DEAL_COLUMNS = `id, organization_id, title, description, pipeline_id, stage_id, stage, contact_id, company_id, owner_id, value::float8 AS value,
  currency, probability, priority, source, to_char(expected_close_date, 'YYYY-MM-DD') AS expected_close_date, notes, tags, custom_fields, position,
  last_activity_at, created_at, updated_at`;

// Race-safe: the partial unique index on the default pipeline makes a second insert a no-op.
export const INSERT_DEFAULT_PIPELINE = `
  INSERT INTO pipelines (organization_id, name, is_default) VALUES (app_org_id(), 'Sales', true)
  ON CONFLICT (organization_id) WHERE is_default DO NOTHING RETURNING id`;

export const INSERT_STAGES = `
  INSERT INTO pipeline_stages (organization_id, pipeline_id, key, name, color, position, default_probability, outcome)
  SELECT app_org_id(), $1, s.key, s.name, s.color, s.position, s.default_probability, s.outcome
  FROM jsonb_to_recordset($2::jsonb) AS s(key text, name text, color text, position int, default_probability int, outcome text)`;

export const DEFAULT_PIPELINE = `SELECT id FROM pipelines WHERE is_default`;

export const PIPELINE_STAGES = `SELECT id, pipeline_id, key, name, color, position, default_probability, outcome FROM pipeline_stages WHERE pipeline_id = $1 ORDER BY position`;

export const INSERT_DEAL = `
  INSERT INTO deals (organization_id, title, description, pipeline_id, stage_id, stage, contact_id, company_id, owner_id, value, currency,
                     probability, priority, source, expected_close_date, notes, tags, custom_fields, position)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
          coalesce((SELECT max(position) + 1 FROM deals WHERE stage_id = $4), 0))
  RETURNING ${DEAL_COLUMNS}`;

export const DEAL_FOR_UPDATE = `SELECT ${DEAL_COLUMNS} FROM deals WHERE id = $1 FOR UPDATE`;

export const UPDATE_DEAL = `
  UPDATE deals SET title = $2, description = $3, pipeline_id = $4, stage_id = $5, stage = $6, contact_id = $7, company_id = $8, owner_id = $9,
         value = $10, currency = $11, probability = $12, priority = $13, source = $14, expected_close_date = $15, notes = $16, tags = $17,
         custom_fields = $18, position = $19, last_activity_at = now(), updated_at = now()
  WHERE id = $1 RETURNING ${DEAL_COLUMNS}`;

export const INSERT_STAGE_HISTORY = `INSERT INTO deal_stage_history (organization_id, deal_id, from_stage, to_stage, changed_by) VALUES (app_org_id(), $1, $2, $3, $4)`;

export const CLOSE_OWNER_PERIOD = `UPDATE deal_owner_history SET ended_at = now() WHERE deal_id = $1 AND ended_at IS NULL`;

export const OPEN_OWNER_PERIOD = `INSERT INTO deal_owner_history (organization_id, deal_id, owner_id, reason, changed_by) VALUES (app_org_id(), $1, $2, $3, $4)`;

export const HAD_OWNER = `SELECT EXISTS (SELECT 1 FROM deal_owner_history WHERE deal_id = $1 AND owner_id IS NOT NULL) AS had`;

// The kanban board: every stage of the pipeline with its deals in position order and column totals.
// Totals over every deal of a column, cards for the first $2 of each (in position order): a board
// of 50,000 deals must not answer all of them at once; more of a column come from /rest/v1/deals.
export const BOARD = `
  SELECT s.id, s.key, s.name, s.color, s.position, s.default_probability, t.deal_count, t.total_value,
         t.deal_count > $2 AS has_more,
         coalesce((SELECT json_agg(json_build_object('id', d.id, 'title', d.title, 'value', d.value::float8, 'currency', d.currency, 'probability', d.probability,
                                                     'owner_id', d.owner_id, 'contact_id', d.contact_id, 'priority', d.priority, 'position', d.position)
                            ORDER BY d.position, d.id)
                   FROM (SELECT * FROM deals WHERE stage_id = s.id ORDER BY position, id LIMIT $2) d), '[]'::json) AS deals
  FROM pipeline_stages s
  CROSS JOIN LATERAL (SELECT count(*)::int AS deal_count, coalesce(sum(value), 0)::float8 AS total_value FROM deals WHERE stage_id = s.id) t
  WHERE s.pipeline_id = $1
  ORDER BY s.position`;
