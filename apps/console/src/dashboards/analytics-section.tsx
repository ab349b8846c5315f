import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useBoard, usePipelines } from '../deals/deals.api';
import { Change, Chart } from '../ui/charts';
import { csvText, saveFile } from '../ui/download';
import { ErrorAlert, Loading } from '../ui/page';
import { daysIn, dealsReport, downloadDealsCsv, downloadMetricCsv, lastDays, metricsReport, type Period, percentChange, previousOf } from './analytics.api';

const PRESETS = [7, 30, 90];
const count = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 0 });
const hours = (value: number) => `${value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })} h`;
const percent = (value: number) => `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;
const amount = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 2 });
const numberOrNull = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value));

// Analytics (issue 38 item 1): the reporting endpoints' figures of a period as charts, each with
// its values in a table and a CSV export, compared with the period of equal length just before.
export function AnalyticsSection() {
  const [period, setPeriod] = useState<Period>(() => lastDays(30));
  const previous = previousOf(period);
  const previousWords = `the previous ${daysIn(period)} days`;
  const metrics = useQuery({ queryKey: ['analytics', 'metrics', period], queryFn: () => metricsReport(period), refetchOnWindowFocus: 'always' });
  const deals = useQuery({ queryKey: ['analytics', 'deals', period], queryFn: () => dealsReport(period, true), refetchOnWindowFocus: 'always' });
  const dealsBefore = useQuery({ queryKey: ['analytics', 'deals', previous], queryFn: () => dealsReport(previous, false) });
  const csv = useMutation({ mutationFn: (save: () => Promise<void>) => save() });
  const series = metrics.data?.series ?? [];
  const comparison = metrics.data?.metrics.period_comparison;
  const dealDays = deals.data?.series ?? [];
  const summary = deals.data?.deals_metrics;
  const before = dealsBefore.data?.deals_metrics;
  const download = (save: () => Promise<void>, title: string) => (
    <button type="button" onClick={() => csv.mutate(save)} disabled={csv.isPending}>
      Download {title} (CSV)
    </button>
  );
  return (
    <>
      <PeriodPicker period={period} onChange={setPeriod} />
      <ErrorAlert error={csv.error} />
      {metrics.isPending || deals.isPending ? <Loading what="the figures" /> : null}
      <ErrorAlert error={metrics.error ?? deals.error ?? dealsBefore.error} />
      {metrics.data ? (
        <div className="charts">
          <Chart
            title="Messages per day"
            kind="bar"
            points={series.map((row) => ({ label: row.date, value: row.total_messages }))}
            format={count}
            integer
            columns={['Day', 'Messages']}
            summary={
              <p>
                <strong>{count(metrics.data.metrics.total_messages)}</strong> messages in the period;{' '}
                <Change value={comparison?.messages_change} previous={previousWords} />
              </p>
            }
            actions={download(() => downloadMetricCsv(period, 'messages'), 'Messages per day')}
          />
          <Chart
            title="Response time per day"
            kind="line"
            points={series.map((row) => ({ label: row.date, value: numberOrNull(row.average_response_time) }))}
            format={hours}
            columns={['Day', 'Average response time']}
            summary={
              <p>
                Average <strong>{metrics.data.metrics.average_response_time === null ? '—' : hours(Number(metrics.data.metrics.average_response_time))}</strong>
                ; <Change value={comparison?.response_time_change} previous={previousWords} />
              </p>
            }
            actions={download(() => downloadMetricCsv(period, 'response_time'), 'Response time per day')}
          />
          <Chart
            title="SLA compliance per day"
            kind="line"
            points={series.map((row) => ({ label: row.date, value: numberOrNull(row.sla_compliance) }))}
            format={percent}
            columns={['Day', 'Answered within target']}
            summary={
              <p>
                <strong>{metrics.data.metrics.sla_compliance === null ? '—' : percent(metrics.data.metrics.sla_compliance)}</strong> within target;{' '}
                <Change value={comparison?.sla_change} previous={previousWords} />
              </p>
            }
            actions={download(() => downloadMetricCsv(period, 'sla'), 'SLA compliance per day')}
          />
        </div>
      ) : null}
      {summary ? (
        <div className="charts">
          <PipelineByStage
            pipelineValue={Number(summary.pipeline_value)}
            change={before ? percentChange(Number(summary.pipeline_value), Number(before.pipeline_value)) : null}
            previousWords={`the end of ${previousWords}`}
            distribution={summary.stage_distribution}
          />
          <Chart
            title="Conversion per day"
            kind="line"
            points={dealDays.map((row) => ({ label: row.date, value: row.conversion_rate }))}
            format={percent}
            columns={['Day', 'Conversion', 'Won', 'Lost']}
            extra={(index) => [count(dealDays[index].deals_won), count(dealDays[index].deals_lost)]}
            summary={
              <p>
                <strong>{summary.conversion_rate === null ? '—' : percent(summary.conversion_rate)}</strong> of the deals closed in the period were won;{' '}
                <Change value={before ? percentChange(summary.conversion_rate, before.conversion_rate) : null} previous={previousWords} />
              </p>
            }
            actions={download(() => downloadDealsCsv(period), 'Conversion per day')}
          />
        </div>
      ) : null}
    </>
  );
}

// The open deals' value by stage of a pipeline now (the board's totals), with the analytics
// report's deal count by stage and its pipeline value compared with the previous period's end.
function PipelineByStage({
  pipelineValue,
  change,
  previousWords,
  distribution,
}: {
  pipelineValue: number;
  change: number | null;
  previousWords: string;
  distribution: Record<string, number>;
}) {
  const pipelines = usePipelines();
  const [chosen, setChosen] = useState<string | null>(null);
  const pipelineId = chosen ?? pipelines.data?.[0]?.id;
  const board = useBoard(pipelineId);
  const stages = board.data?.stages ?? [];
  const title = 'Pipeline value by stage';
  const save = () =>
    saveFile(
      new Blob([csvText([['stage', 'total_value', 'deal_count'], ...stages.map((stage) => [stage.name, Number(stage.total_value), stage.deal_count])])], {
        type: 'text/csv',
      }),
      'pipeline-value-by-stage.csv',
    );
  return (
    <div>
      {pipelines.data && pipelines.data.length > 1 ? (
        <div className="field">
          <label htmlFor="chart-pipeline">Pipeline</label>
          <select id="chart-pipeline" value={pipelineId} onChange={(event) => setChosen(event.target.value)}>
            {pipelines.data.map((pipeline) => (
              <option key={pipeline.id} value={pipeline.id}>
                {pipeline.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <ErrorAlert error={pipelines.error ?? board.error} />
      <Chart
        title={title}
        kind="bar"
        points={stages.map((stage) => ({ label: stage.name, value: Number(stage.total_value) }))}
        format={amount}
        columns={['Stage', 'Value', 'Deals', 'Deals in every pipeline']}
        extra={(index) => [count(stages[index].deal_count), count(distribution[stages[index].name] ?? 0)]}
        summary={
          <p>
            <strong>{amount(pipelineValue)}</strong> in open deals of every pipeline; <Change value={change} previous={previousWords} />
          </p>
        }
        actions={
          <button type="button" onClick={save} disabled={stages.length === 0}>
            Download {title} (CSV)
          </button>
        }
      />
    </div>
  );
}

function PeriodPicker({ period, onChange }: { period: Period; onChange: (period: Period) => void }) {
  const preset = PRESETS.find((days) => {
    const candidate = lastDays(days);
    return candidate.start === period.start && candidate.end === period.end;
  });
  const [custom, setCustom] = useState(preset === undefined);
  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onChange({ start: String(form.get('start')), end: String(form.get('end')) });
  }
  return (
    <form className="filters" onSubmit={apply} aria-label="Reporting period">
      <div className="field">
        <label htmlFor="analytics-period">Period</label>
        <select
          id="analytics-period"
          value={custom ? 'custom' : String(preset)}
          onChange={(event) => {
            if (event.target.value === 'custom') return setCustom(true);
            setCustom(false);
            onChange(lastDays(Number(event.target.value)));
          }}
        >
          {PRESETS.map((days) => (
            <option key={days} value={days}>
              Last {days} days
            </option>
          ))}
          <option value="custom">Custom range</option>
        </select>
      </div>
      {custom ? (
        <>
          <div className="field">
            <label htmlFor="analytics-start">From</label>
            <input id="analytics-start" name="start" type="date" defaultValue={period.start} required />
          </div>
          <div className="field">
            <label htmlFor="analytics-end">To</label>
            <input id="analytics-end" name="end" type="date" defaultValue={period.end} required />
          </div>
          <div className="field">
            <button type="submit">Show</button>
          </div>
        </>
      ) : null}
      <p className="muted small">
        {period.start} to {period.end}, compared with {previousOf(period).start} to {previousOf(period).end}
      </p>
    </form>
  );
}
