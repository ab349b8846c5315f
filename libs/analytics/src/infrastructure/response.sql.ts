// How a customer message's response is measured (docs/analytics.md, "Definitions"), over the
// message view `f`: every hour counts, or (the organization's `business_hours` set) only the time
// inside its open intervals, in its time zone. Every statement over response times comes in both
// forms; an organization without business hours runs exactly the every-hour one.
// Placeholders: :target (the response target, an interval), :now; business hours also :tz, :hours
// (the canonical schedule, jsonb) and :due (below).
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

// Business seconds never exceed the elapsed ones: a reply within the target by the clock needs no
// count. A message is past the target exactly when it came before :due (DUE below).
export const BUSINESS_HOURS: ResponseRule = {
  seconds: businessSeconds('f.created_at', 'f.first_reply_at'),
  within: `(f.first_reply_at <= f.created_at + :target::interval
            OR ${businessSeconds('f.created_at', 'f.first_reply_at')} <= extract(epoch FROM :target::interval))`,
  past: `f.created_at < :due::timestamptz`,
};

export const RULES: Record<RuleName, ResponseRule> = { every: EVERY_HOUR, business: BUSINESS_HOURS };

// A statement in both forms.
export const both = (build: (rule: ResponseRule) => string): Record<RuleName, string> => ({ every: build(EVERY_HOUR), business: build(BUSINESS_HOURS) });

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
      SELECT x.e, extract(epoch FROM x.e - x.s) AS len
      FROM generate_series((least(:since::timestamptz, :now::timestamptz) AT TIME ZONE :tz::text)::date::timestamp,
                           (:now::timestamptz AT TIME ZONE :tz::text)::date::timestamp, interval '1 day') d
      CROSS JOIN LATERAL jsonb_array_elements(:hours::jsonb -> (extract(isodow FROM d)::int - 1)) i
      CROSS JOIN LATERAL (SELECT (d + make_interval(mins => (i ->> 0)::int)) AT TIME ZONE :tz::text AS s,
                                 least((d + make_interval(mins => (i ->> 1)::int)) AT TIME ZONE :tz::text, :now::timestamptz) AS e) x
      WHERE x.e > x.s
    ) o
  ) c
  WHERE upto > extract(epoch FROM :target::interval) AND upto - len <= extract(epoch FROM :target::interval)`;
