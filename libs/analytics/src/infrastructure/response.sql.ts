// How a customer message's response is measured (docs/analytics.md, "Definitions"), over the
// message view `f`: every hour counts, or (the organization's `business_hours` set) only the time
// inside its open intervals, in its time zone. Every statement over response times comes in both
// forms; an organization without business hours runs exactly the every-hour one.
// Placeholders: :target (the response target, an interval), :now; business hours also :tz, :hours
// (the canonical schedule, jsonb), :due, and the calendar :starts, :ends, :before, :cal_from, :cal_to (below).
export interface ResponseRule {
  // Response seconds of an answered message (null when unanswered).
  seconds: string;
  // Answered within the target.
  within: string;
  // Unanswered and past the target now.
  past: string;
}

export type RuleName = 'every' | 'business';

export const EVERY_HOUR: ResponseRule = {
  seconds: `extract(epoch FROM f.first_reply_at - f.created_at)`,
  within: `f.first_reply_at <= f.created_at + :target::interval`,
  past: `f.created_at + :target::interval < :now::timestamptz`,
};

export const businessSeconds = (from: string, to: string) => `analytics_business_seconds(${from}, ${to}, :tz::text, :hours::jsonb)`;

// The business clock at t: microseconds of open time from the calendar's first interval to t. The
// calendar (CALENDAR below, passed as parameters) holds the open intervals of the report's days in
// order; width_bucket finds the last one starting at or before t by binary search, so a message
// costs a few array look-ups instead of a walk over its days.
const slot = (t: string) => `width_bucket(${t}, :starts::timestamptz[])`;
const clockAt = (t: string) => `coalesce((:before::int8[])[${slot(t)}]
  + (extract(epoch FROM least(${t}, (:ends::timestamptz[])[${slot(t)}]) - (:starts::timestamptz[])[${slot(t)}]) * 1000000)::int8, 0)`;

// Response seconds: from the calendar when both instants lie within it (:cal_from .. :cal_to),
// otherwise (a reply dated after the calendar's end) by analytics_business_seconds; both exact.
const BUSINESS_SECONDS = `
  CASE WHEN f.created_at >= :cal_from::timestamptz AND f.first_reply_at <= :cal_to::timestamptz
       THEN (${clockAt('f.first_reply_at')} - ${clockAt('f.created_at')}) / 1000000.0
       ELSE ${businessSeconds('f.created_at', 'f.first_reply_at')} END`;

// Business seconds never exceed the elapsed ones: a reply within the target by the clock needs no
// count. A message is past the target exactly when it came before :due (DUE below).
export const BUSINESS_HOURS: ResponseRule = {
  seconds: BUSINESS_SECONDS,
  within: `(f.first_reply_at <= f.created_at + :target::interval OR ${BUSINESS_SECONDS} <= extract(epoch FROM :target::interval))`,
  past: `f.created_at < :due::timestamptz`,
};

// A statement in both forms.
export const both = (build: (rule: ResponseRule) => string): Record<RuleName, string> => ({ every: build(EVERY_HOUR), business: build(BUSINESS_HOURS) });

// The open intervals of the local days from `first` to `last` (local midnights, timestamps) as
// instants s..e, as analytics_business_seconds has them: a local time in a spring-forward gap maps
// an hour on, so each interval starts no earlier than the day's earlier ones end (no overlap).
const openIntervals = (first: string, last: string) => `
  SELECT s, e FROM (
    SELECT greatest(x.s, max(x.e) OVER (PARTITION BY d ORDER BY (i ->> 0)::int ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS s, x.e
    FROM generate_series(${first}, ${last}, interval '1 day') d
    CROSS JOIN LATERAL jsonb_array_elements(:hours::jsonb -> (extract(isodow FROM d)::int - 1)) i
    CROSS JOIN LATERAL (SELECT (d + make_interval(mins => (i ->> 0)::int)) AT TIME ZONE :tz::text AS s,
                               (d + make_interval(mins => (i ->> 1)::int)) AT TIME ZONE :tz::text AS e) x
  ) y WHERE e > s`;
const localMidnight = (at: string) => `(${at} AT TIME ZONE :tz::text)::date::timestamp`;

// The open intervals from :since's local day to :until's as instants, in order, with the open
// microseconds before each: the parameters :starts, :ends, :before of BUSINESS_HOURS.
export const CALENDAR = `
  SELECT coalesce(array_agg(s ORDER BY s), '{}') AS starts, coalesce(array_agg(e ORDER BY s), '{}') AS ends,
         coalesce(array_agg(before ORDER BY s), '{}') AS before
  FROM (
    SELECT s, e, (coalesce(sum(extract(epoch FROM e - s) * 1000000) OVER (ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))::int8 AS before
    FROM (${openIntervals(localMidnight(':since::timestamptz'), localMidnight('greatest(:since::timestamptz, :until::timestamptz)'))}) o
  ) c`;

// :due, the instant t with exactly the target's business seconds between t and :now: a message
// before it has more (past the target), one at or after it has at most the target. Walking back from
// :now over the open intervals of the local days since :since, t falls in the interval where the
// running total (latest first) passes the target: t = its end - (target - total of the later ones).
// Intervals are [start, end), so there is open time just before t: the comparison is exact. NULL
// when the time since :since holds no more than the target (no message since then is past it).
export const DUE = `
  SELECT max(e - make_interval(secs => (extract(epoch FROM :target::interval) - (upto - len))::float8)) AS due
  FROM (
    SELECT e, len, sum(len) OVER (ORDER BY e DESC) AS upto
    FROM (
      SELECT least(e, :now::timestamptz) AS e, extract(epoch FROM least(e, :now::timestamptz) - s) AS len
      FROM (${openIntervals(localMidnight('least(:since::timestamptz, :now::timestamptz)'), localMidnight(':now::timestamptz'))}) o
      WHERE s < :now::timestamptz
    ) n
  ) c
  WHERE upto > extract(epoch FROM :target::interval) AND upto - len <= extract(epoch FROM :target::interval)`;
