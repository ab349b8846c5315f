import type { MigrationInterface, QueryRunner } from 'typeorm';

// Business hours (docs/analytics.md, "Definitions"): analytics_business_seconds is the time between
// two instants that falls inside the open intervals of a schedule, read in a time zone. The
// schedule is the canonical form of the organization's `business_hours` setting: seven lists,
// Monday first, of [start, end) minutes after local midnight. Each local day's interval is turned
// into instants with AT TIME ZONE, so a day of a DST change counts the hours that really passed; a
// local time in a spring-forward gap maps an hour on, so an interval is clamped to start after the
// day's earlier ones end (none is counted twice).
// Pure computation over its arguments: no table is read, so it needs no grant or policy (EXECUTE
// stays PUBLIC, like the built-ins it uses). numeric, as extract(epoch) is: sums stay exact, so the
// rollups equal the direct statements to the microsecond. NULL when either instant is NULL.
// analytics_rollup_state.schedule: the time zone and schedule the rollup's figures were computed
// for (NULL: every hour counts), so a change of either makes older rollups unused until re-rolled.
export class BusinessHours1763800014003 implements MigrationInterface {
  name = 'BusinessHours1763800014003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION analytics_business_seconds(from_at timestamptz, to_at timestamptz, tz text, hours jsonb) RETURNS numeric
      LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(sum(greatest(extract(epoch FROM least(to_at, y.e) - greatest(from_at, y.s)), 0)), 0)
        FROM (
          SELECT greatest(x.s, max(x.e) OVER (PARTITION BY d ORDER BY (i ->> 0)::int ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS s, x.e
          FROM generate_series((from_at AT TIME ZONE tz)::date::timestamp, (to_at AT TIME ZONE tz)::date::timestamp, interval '1 day') d
          CROSS JOIN LATERAL jsonb_array_elements(hours -> (extract(isodow FROM d)::int - 1)) i
          CROSS JOIN LATERAL (SELECT (d + make_interval(mins => (i ->> 0)::int)) AT TIME ZONE tz AS s,
                                     (d + make_interval(mins => (i ->> 1)::int)) AT TIME ZONE tz AS e) x
          WHERE from_at < to_at
        ) y
      $$;
      ALTER TABLE analytics_rollup_state ADD COLUMN schedule text;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE analytics_rollup_state DROP COLUMN schedule;
      DROP FUNCTION analytics_business_seconds(timestamptz, timestamptz, text, jsonb);
    `);
  }
}
