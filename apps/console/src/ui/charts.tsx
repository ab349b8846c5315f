import { type ReactNode, useId } from 'react';
import './charts.css';

// Charts drawn as plain SVG (no chart library: five charts of one series each need an axis, bars
// or a line, and nothing else). The SVG is a picture for the eye; the table under it holds every
// value, so screen readers, keyboards and copy-paste read the table (docs/console.md, "Analytics").

export interface ChartPoint {
  label: string;
  value: number | null;
}

export interface ChartProps {
  title: string;
  kind: 'bar' | 'line';
  points: ChartPoint[];
  // How a value is written in the table, the axis and the tooltips.
  format: (value: number) => string;
  // The table's columns: the category's name and the value's name, then any extra columns.
  columns: [string, string, ...string[]];
  extra?: (index: number) => ReactNode[];
  summary?: ReactNode;
  actions?: ReactNode;
  // Whole numbers (counts): the axis steps by 1 at least.
  integer?: boolean;
}

const WIDTH = 640;
const HEIGHT = 220;
const LEFT = 64;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 28;

export function Chart({ title, kind, points, format, columns, extra, summary, actions, integer = false }: ChartProps) {
  const headingId = useId();
  const values = points.map((point) => point.value).filter((value): value is number => value !== null);
  const { top, step: tickStep } = niceScale(Math.max(0, ...values), integer);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = points.length > 0 ? plotWidth / points.length : plotWidth;
  const x = (index: number) => LEFT + step * index + step / 2;
  const y = (value: number) => TOP + plotHeight - (top === 0 ? 0 : (value / top) * plotHeight);
  const ticks = Array.from({ length: Math.round(top / tickStep) + 1 }, (_, index) => index * tickStep);
  // At most about 10 labels under the axis, so they never overlap.
  const labelEvery = Math.max(1, Math.ceil(points.length / 10));
  return (
    <section className="chart" aria-labelledby={headingId}>
      <h2 id={headingId} dir="auto">
        {title}
      </h2>
      {summary ? <div className="chart-summary">{summary}</div> : null}
      <svg
        className="chart-plot"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${title}: chart of the ${points.length} values in the table below`}
        preserveAspectRatio="xMidYMid meet"
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line className="chart-grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
            <text className="chart-axis" x={LEFT - 6} y={y(tick) + 4} textAnchor="end">
              {format(tick)}
            </text>
          </g>
        ))}
        {points.map((point, index) =>
          index % labelEvery === 0 ? (
            <text key={`label-${index}`} className="chart-axis" x={x(index)} y={HEIGHT - 8} textAnchor="middle">
              {shortLabel(point.label)}
            </text>
          ) : null,
        )}
        {kind === 'bar' ? (
          <Bars points={points} x={x} y={y} width={Math.max(2, step * 0.7)} format={format} />
        ) : (
          <Line points={points} x={x} y={y} format={format} />
        )}
      </svg>
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${title}: values`}>
        <table aria-labelledby={headingId}>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((point, index) => (
              <tr key={`${point.label}-${index}`}>
                <th scope="row" dir="auto">
                  {point.label}
                </th>
                <td>{point.value === null ? '—' : format(point.value)}</td>
                {(extra?.(index) ?? []).map((cell, column) => (
                  <td key={column}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </section>
  );
}

interface Scale {
  points: ChartPoint[];
  x: (index: number) => number;
  y: (value: number) => number;
  format: (value: number) => string;
}

function Bars({ points, x, y, width, format }: Scale & { width: number }) {
  const base = y(0);
  return (
    <g className="chart-bars">
      {points.map((point, index) =>
        point.value === null ? null : (
          <rect key={index} x={x(index) - width / 2} y={y(point.value)} width={width} height={Math.max(0, base - y(point.value))} data-value={point.value}>
            <title>{`${point.label}: ${format(point.value)}`}</title>
          </rect>
        ),
      )}
    </g>
  );
}

// A line through the known values, broken where a value is missing (a day with nothing to measure).
function Line({ points, x, y, format }: Scale) {
  const runs: string[] = [];
  let current: string[] = [];
  points.forEach((point, index) => {
    if (point.value === null) {
      if (current.length > 0) runs.push(current.join(' '));
      current = [];
      return;
    }
    current.push(`${current.length === 0 ? 'M' : 'L'}${x(index).toFixed(1)},${y(point.value).toFixed(1)}`);
  });
  if (current.length > 0) runs.push(current.join(' '));
  return (
    <g className="chart-line">
      {runs.map((run) => (
        <path key={run} d={run} />
      ))}
      {points.map((point, index) =>
        point.value === null ? null : (
          <circle key={index} cx={x(index)} cy={y(point.value)} r={3.5} data-value={point.value}>
            <title>{`${point.label}: ${format(point.value)}`}</title>
          </circle>
        ),
      )}
    </g>
  );
}

// The axis: a step of 1, 2 or 5 times a power of ten giving at most about 4 intervals, and the
// first multiple of it at or above the largest value (0 to 1 when there is nothing to show).
export function niceScale(max: number, integer = false): { top: number; step: number } {
  if (max <= 0) return integer ? { top: 1, step: 1 } : { top: 1, step: 0.25 };
  if (integer && max <= 4) return { top: Math.ceil(max), step: 1 };
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? 10 * power;
  return { top: Math.ceil(max / step - 1e-9) * step, step };
}

// Dates (2026-11-28) are shortened to the day and month under the axis; other labels are cut.
const shortLabel = (label: string) => (/^\d{4}-\d{2}-\d{2}$/.test(label) ? label.slice(5) : label.length > 12 ? `${label.slice(0, 11)}…` : label);

// A change against the previous period as the API gives it (percent, two decimals; null when the
// previous figure was 0 or missing).
export function Change({ value, previous }: { value: number | null | undefined; previous: string }) {
  if (value === null || value === undefined) return <span className="muted">no comparison with {previous} (nothing to compare with)</span>;
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return (
    <span className={value > 0 ? 'change up' : value < 0 ? 'change down' : 'change'}>
      {sign}
      {Math.abs(value).toLocaleString(undefined, { maximumFractionDigits: 2 })} % against {previous}
    </span>
  );
}
