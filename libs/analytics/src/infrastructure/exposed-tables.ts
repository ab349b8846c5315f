import { tableDefinition } from '@engage/platform';
import { column, COMMON_COLUMNS, declareTable } from '@engage/shared-kernel';

// dashboard_widgets through the data API: writes go through WidgetsWriter (validation of the type
// and config); the list (GET /rest/v1/dashboard_widgets) is answered by the widgets controller with
// each widget's computed value. user_id is the caller's, set by the writer.
const { uuid, at } = COMMON_COLUMNS;
const write = { api: 'write' } as const;

export const DASHBOARD_WIDGETS = declareTable({
  name: 'dashboard_widgets',
  columns: {
    id: uuid,
    organization_id: uuid,
    user_id: uuid,
    widget_type: column('text', write),
    widget_config: column('jsonb', write),
    position: column('integer', write),
    is_visible: column('boolean', write),
    created_at: at,
    updated_at: at,
  },
});

export const ANALYTICS_TABLES = { dashboardWidgets: tableDefinition(DASHBOARD_WIDGETS, { writable: true }) };
