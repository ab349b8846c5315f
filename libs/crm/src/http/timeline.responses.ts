import { json, viewSchema } from '@engage/platform';
import { TIMELINE_ENTRIES } from '../infrastructure/crm-columns';

const ENTRY = viewSchema(TIMELINE_ENTRIES, ['id', 'type', 'source', 'occurred_at', 'actor_id', 'contact_id', 'deal_id', 'company_id', 'summary', 'data']);

// Newest first; next_cursor is null on the last page.
export const TIMELINE_PAGE = json.object({ entries: json.arrayOf(ENTRY), next_cursor: json.nullable(json.text) });
