import { splitSpans } from './rollup-coverage';

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);

describe('splitSpans', () => {
  it('should read whole quarter hours from the rollups and the edges directly', () => {
    const { rollup, direct } = splitSpans([at('2026-01-10T10:07:30Z'), at('2026-01-10T12:52:00Z')], ms('2026-01-10T12:00:00Z'));
    expect(rollup).toEqual([[ms('2026-01-10T10:15:00Z'), ms('2026-01-10T12:00:00Z')]]);
    expect(direct).toEqual([
      [ms('2026-01-10T10:07:30Z'), ms('2026-01-10T10:15:00Z')],
      [ms('2026-01-10T12:00:00Z'), ms('2026-01-10T12:52:00Z')],
    ]);
  });

  it('should split at every boundary, so no quarter hour straddles two periods or days', () => {
    const bounds = [at('2026-01-08T00:00:00Z'), at('2026-01-09T23:50:00Z'), at('2026-01-11T00:00:00Z')];
    const { rollup, direct } = splitSpans(bounds, ms('2026-02-01T00:00:00Z'));
    expect(rollup).toEqual([
      [ms('2026-01-08T00:00:00Z'), ms('2026-01-09T23:45:00Z')],
      [ms('2026-01-10T00:00:00Z'), ms('2026-01-11T00:00:00Z')],
    ]);
    expect(direct).toEqual([
      [ms('2026-01-09T23:45:00Z'), ms('2026-01-09T23:50:00Z')],
      [ms('2026-01-09T23:50:00Z'), ms('2026-01-10T00:00:00Z')],
    ]);
  });

  it('should read everything directly with nothing rolled, or when the span ends before a whole quarter hour', () => {
    const bounds = [at('2026-01-10T00:00:00Z'), at('2026-01-11T00:00:00Z')];
    expect(splitSpans(bounds, null)).toEqual({ rollup: [], direct: [[ms('2026-01-10T00:00:00Z'), ms('2026-01-11T00:00:00Z')]] });
    expect(splitSpans([at('2026-01-10T00:01:00Z'), at('2026-01-10T00:14:00Z')], ms('2026-02-01T00:00:00Z')).rollup).toEqual([]);
    expect(splitSpans(bounds, ms('2026-01-09T00:00:00Z')).rollup).toEqual([]);
  });
});
