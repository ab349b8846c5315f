import { namedColumns, selectList } from '@engage/platform';
import { DEAL_FIELDS, DEALS } from '../domain/deal';

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

export type { DealRow } from '../domain/deal';

// Reads select the declared columns; writes name theirs: the fields, then what the service resolves.
export const DEAL_COLUMNS = selectList(DEALS);
export const DEAL_WRITE = namedColumns(DEALS, [...DEAL_FIELDS, 'pipeline_id', 'stage_id', 'stage']);
export const DEAL_UPDATE = namedColumns(DEALS, [...DEAL_WRITE.names, 'position']);

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

// A new deal goes to the end of its stage's column.
export const INSERT_DEAL = `
  INSERT INTO deals (organization_id, ${DEAL_WRITE.list}, position)
  VALUES (app_org_id(), ${DEAL_WRITE.placeholders(1)},
          coalesce((SELECT max(position) + 1 FROM deals WHERE stage_id = ${DEAL_WRITE.placeholderOf('stage_id', 1)}), 0))
  RETURNING ${DEAL_COLUMNS}`;

export const DEAL_FOR_UPDATE = `SELECT ${DEAL_COLUMNS} FROM deals WHERE id = $1 FOR UPDATE`;

// $1 the id, then DEAL_UPDATE's columns.
export const UPDATE_DEAL = `
  UPDATE deals SET ${DEAL_UPDATE.assignments(2)}, last_activity_at = now(), updated_at = now()
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
