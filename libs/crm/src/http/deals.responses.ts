import { json, viewSchema } from '@engage/platform';
import { DEALS } from '../domain/deal';
import { PIPELINE_STAGES } from '../infrastructure/crm-columns';

const { uuid, integer, number, boolean, arrayOf, object, extend } = json;

const CARD = viewSchema(DEALS, ['id', 'title', 'value', 'currency', 'probability', 'owner_id', 'contact_id', 'priority', 'position']);
const COLUMN = extend(viewSchema(PIPELINE_STAGES, ['id', 'key', 'name', 'color', 'position', 'default_probability']), {
  deal_count: integer,
  total_value: number,
  has_more: boolean,
  deals: arrayOf(CARD),
});

// The kanban board: one column per stage in order, its first cards and totals over all its deals.
export const BOARD = object({ pipeline_id: uuid, stages: arrayOf(COLUMN) });

// The moved deal.
export const DEAL = viewSchema(DEALS);
