import { isDomainError } from '@engage/shared-kernel';
import { parseDateParam, parseReportQuery } from './report-query';
import { parseWidgetConfig, type WidgetSourceShape } from './widget-config';

const ORG = '3f1b0c9e-8a9d-4c47-9d7e-2a3c4b5d6e7f';
const failure = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (isDomainError(error)) return { kind: error.kind, message: error.message };
    throw error;
  }
  throw new Error('did not fail');
};

describe('report query', () => {
  it('should read dates as local days, local times or instants', () => {
    expect(parseDateParam('start_date', '2026-02-28')).toEqual({ kind: 'date', value: '2026-02-28' });
    expect(parseDateParam('start_date', '2026-02-28 09:30')).toEqual({ kind: 'local', value: '2026-02-28T09:30' });
    expect(parseDateParam('end_date', '2026-02-28T09:30:15.5+02:00')).toEqual({ kind: 'instant', value: '2026-02-28T09:30:15.5+02:00' });
    expect(parseDateParam('end_date', '2024-02-29T00:00:00Z').kind).toBe('instant');
  });

  it.each(['2026-02-29', '2026-00-10', '2026-01-01T24:00:00Z', '2026-01-01T10:00:00+16:00', '26-01-01', 'now', '2026-01-01T10:00:00ZZ'])(
    'should refuse %s naming the parameter',
    (raw) => {
      expect(failure(() => parseDateParam('start_date', raw))).toMatchObject({ kind: 'validation', message: expect.stringContaining('start_date') });
    },
  );

  it('should take the caller organization, bare or eq., and refuse another with forbidden', () => {
    expect(parseReportQuery({ organization_id: `eq.${ORG}`, metric_type: 'sla', group_by: 'day' }, ORG)).toMatchObject({ metricType: 'sla', groupByDay: true });
    expect(failure(() => parseReportQuery({ organization_id: '00000000-0000-4000-8000-000000000000' }, ORG)).kind).toBe('forbidden');
    expect(failure(() => parseReportQuery({ start_date: ['2026-01-01', '2026-01-02'] }, ORG)).message).toContain('start_date');
  });
});

describe('widget config', () => {
  const SOURCES: Record<string, WidgetSourceShape> = {
    deals: { columns: ['value', 'stage', 'closed_at', 'created_at'], numeric: ['value'], times: ['closed_at', 'created_at'], defaultTime: 'created_at' },
  };

  it('should fill defaults from the type', () => {
    expect(parseWidgetConfig('sla', undefined, SOURCES)).toEqual({ title: 'SLA', format: 'Percentage', date_range: 'This Month' });
    expect(parseWidgetConfig('custom', { table: 'deals', aggregation: 'Sum', column: 'value', date_column: 'closed_at' }, SOURCES)).toMatchObject({
      title: 'Custom',
      aggregation: 'Sum',
      column: 'value',
      date_column: 'closed_at',
      format: 'Number',
    });
  });

  it.each([
    [{ table: 'deals', date_column: 'stage' }, 'date_column'],
    [{ table: 'deals', aggregation: 'Max', column: 'stage' }, 'stage'],
    [{ table: 'deals', title: '' }, 'title'],
    [{ table: 'deals', query: 'x'.repeat(2001) }, 'query'],
    [{ table: 'deals', start_date: '2026-01-01' }, 'start_date'],
  ])('should refuse %j naming %s', (config, name) => {
    expect(failure(() => parseWidgetConfig('custom', config, SOURCES)).message).toContain(name);
  });
});
