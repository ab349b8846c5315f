import { callApi } from '../api/functions';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';

export const WIDGET_TYPES = [
  'incoming_messages',
  'open_conversations',
  'response_time',
  'sla',
  'pipeline_value',
  'deals_won',
  'new_contacts',
  'custom',
] as const;
export const TABLES = ['contacts', 'conversations', 'messages', 'deals'] as const;
export const AGGREGATIONS = ['Count', 'Sum', 'Average', 'Min', 'Max'] as const;
export const FORMATS = ['Number', 'Currency', 'Percentage', 'Time Duration'] as const;
export const RANGES = ['Today', 'Yesterday', 'This Week', 'This Month', 'Custom Range'] as const;

export const TYPE_NAMES: Record<string, string> = {
  incoming_messages: 'Incoming messages',
  open_conversations: 'Open conversations',
  response_time: 'Response time',
  sla: 'SLA',
  pipeline_value: 'Pipeline value',
  deals_won: 'Deals won',
  new_contacts: 'New contacts',
  custom: 'Custom',
};

// docs/analytics.md, "Dashboard widgets": the config the API checks (unknown keys are a 400).
export interface WidgetConfig {
  title?: string;
  format?: (typeof FORMATS)[number];
  date_range?: (typeof RANGES)[number];
  start_date?: string;
  end_date?: string;
  query?: string;
  table?: string;
  column?: string;
  aggregation?: string;
  date_column?: string;
}

export interface Widget {
  id: string;
  widget_type: string;
  widget_config: WidgetConfig;
  position: number;
  is_visible: boolean;
  value: number | string | null;
  error: { code: string; message: string } | null;
}

export const WIDGETS = ['dashboard_widgets'] as const;

// The member's own widgets with their values (the analytics context's route; each member sees only theirs).
export const listWidgets = async () => (await callApi<{ widgets: Widget[] }>('/rest/v1/dashboard_widgets?is_visible=true')).widgets;

export async function createWidget(fields: { widget_type: string; widget_config: WidgetConfig; position: number }): Promise<void> {
  const { error } = await supabase.from('dashboard_widgets').insert(fields);
  if (error) throw fromSupabase(error);
}

export async function updateWidget(id: string, fields: Partial<Pick<Widget, 'widget_config' | 'position' | 'is_visible'>>): Promise<void> {
  const { error } = await supabase.from('dashboard_widgets').update(fields).eq('id', id);
  if (error) throw fromSupabase(error);
}

export async function deleteWidget(id: string): Promise<void> {
  const { error } = await supabase.from('dashboard_widgets').delete().eq('id', id);
  if (error) throw fromSupabase(error);
}

// Positions 0, 10, 20 ... in the new order; only the widgets whose position changes are written.
export async function savePositions(order: Widget[]): Promise<void> {
  await Promise.all(order.map((widget, index) => (widget.position === index * 10 ? null : updateWidget(widget.id, { position: index * 10 }))));
}

export const widgetTitle = (widget: Pick<Widget, 'widget_type' | 'widget_config'>): string =>
  widget.widget_config.title ?? TYPE_NAMES[widget.widget_type] ?? widget.widget_type;

// A value as its format says: durations are seconds, percentages 0-100.
export function formatValue(value: Widget['value'], format: WidgetConfig['format'], currency = 'USD'): string {
  if (value === null || value === undefined) return '—';
  const number = Number(value);
  if (!Number.isFinite(number)) return String(value);
  switch (format) {
    case 'Currency':
      return number.toLocaleString(undefined, { style: 'currency', currency });
    case 'Percentage':
      return `${number.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
    case 'Time Duration': {
      const seconds = Math.round(number);
      const hours = Math.floor(seconds / 3600);
      const minutes = Math.floor((seconds % 3600) / 60);
      return hours > 0 ? `${hours} h ${minutes} min` : minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
    }
    default:
      return number.toLocaleString(undefined, { maximumFractionDigits: 2 });
  }
}
