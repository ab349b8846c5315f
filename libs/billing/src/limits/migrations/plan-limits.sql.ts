// The SQL of the plan limits (migration 0101). Refusals raise SQLSTATE EG402 with a JSON DETAIL,
// which the platform turns into the 402 domain error of every API family.

// The period conversations are counted in: the subscription's current period while it runs, else
// the calendar month (UTC). Invoker's rights: a tenant sees only its own subscription.
const PLAN_PERIOD = `
  CREATE FUNCTION plan_period(org uuid, OUT period_start timestamptz, OUT period_end timestamptz)
  LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    SELECT coalesce(s.current_period_start, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
           coalesce(s.current_period_end, (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC')
    FROM (SELECT 1) AS one
    LEFT JOIN subscriptions s ON s.organization_id = org AND s.current_period_start <= now() AND now() < s.current_period_end
  $$;`;

// Exact counters, once: when a subscription appears, and when its period changes.
const RECOUNT = `
  CREATE FUNCTION plan_usage_recount(org uuid) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE p record;
  BEGIN
    SELECT * INTO p FROM plan_period(org);
    INSERT INTO plan_usage AS u (organization_id, contacts, team_members, conversations, period_start, period_end)
    VALUES (org,
            (SELECT count(*) FROM contacts WHERE organization_id = org),
            (SELECT count(*) FROM memberships WHERE organization_id = org),
            (SELECT count(*) FROM conversations WHERE organization_id = org AND created_at >= p.period_start AND created_at < p.period_end),
            p.period_start, p.period_end)
    ON CONFLICT (organization_id) DO UPDATE
      SET contacts = excluded.contacts, team_members = excluded.team_members, conversations = excluded.conversations,
          period_start = excluded.period_start, period_end = excluded.period_end, updated_at = now();
  END $$;`;

// Adds what a statement created (delta > 0) or removed (delta < 0), then holds the plan's limit
// against the new usage. kind 'invitations' adds nothing: an invitation is refused when the team
// is already full. In a transaction marked 'record' (inbound customer messages) nothing is refused:
// the write stays and the organization is marked over its limit.
const ADD = `
  CREATE FUNCTION plan_usage_add(kind text, org uuid, delta integer) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    cur plan_usage;
    p record;
    used integer;
    lim integer;
    name text := CASE kind WHEN 'contacts' THEN 'contacts' WHEN 'conversations' THEN 'conversations_per_month' ELSE 'team_members' END;
  BEGIN
    -- No row: the organization has no subscription and no limits. The lock serialises the rest.
    SELECT * INTO cur FROM plan_usage WHERE organization_id = org FOR UPDATE;
    IF NOT FOUND THEN RETURN; END IF;
    IF kind = 'conversations' THEN
      SELECT * INTO p FROM plan_period(org);
      IF p.period_start IS DISTINCT FROM cur.period_start OR p.period_end IS DISTINCT FROM cur.period_end THEN
        -- A new period: counted afresh (this statement's rows included, the trigger runs after it).
        PERFORM plan_usage_recount(org);
        SELECT conversations INTO used FROM plan_usage WHERE organization_id = org;
      ELSE
        UPDATE plan_usage SET conversations = conversations + delta, updated_at = now() WHERE organization_id = org RETURNING conversations INTO used;
      END IF;
    ELSIF kind = 'invitations' THEN
      used := cur.team_members;
    ELSE
      UPDATE plan_usage SET contacts = contacts + CASE WHEN kind = 'contacts' THEN delta ELSE 0 END,
                            team_members = team_members + CASE WHEN kind = 'team_members' THEN delta ELSE 0 END, updated_at = now()
      WHERE organization_id = org
      RETURNING CASE WHEN kind = 'contacts' THEN contacts ELSE team_members END INTO used;
    END IF;
    IF delta < 0 OR (delta = 0 AND kind <> 'invitations') THEN RETURN; END IF;
    SELECT CASE kind WHEN 'contacts' THEN pl.limit_contacts WHEN 'conversations' THEN pl.limit_conversations_per_month ELSE pl.limit_team_members END
      INTO lim FROM subscriptions s JOIN subscription_plans pl ON pl.id = s.plan_id WHERE s.organization_id = org;
    IF lim IS NULL OR (kind = 'invitations' AND used < lim) OR (kind <> 'invitations' AND used <= lim) THEN RETURN; END IF;
    IF current_setting('app.plan_limits', true) = 'record' THEN
      UPDATE plan_usage SET over_limit_at = now() WHERE organization_id = org;
      RETURN;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'EG402',
      MESSAGE = format('The plan allows %s %s and the organization has %s', lim, replace(name, '_', ' '), used - delta),
      DETAIL = json_build_object('code', 'plan_limit_exceeded', 'limit', name, 'value', lim, 'usage', used - delta)::text,
      HINT = 'upgrade the plan (GET /functions/v1/subscription shows the usage)';
  END $$;`;

// One statement trigger for every counted table: TG_ARGV[0] names what it counts.
const CHANGED = `
  CREATE FUNCTION plan_usage_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    r record;
    tenant uuid := nullif(current_setting('app.org_id', true), '')::uuid;
  BEGIN
    -- In a tenant transaction every row is the tenant's (row-level security): without a subscription
    -- there is nothing to count, and the statement's rows are not even read.
    IF tenant IS NOT NULL AND NOT EXISTS (SELECT 1 FROM plan_usage WHERE organization_id = tenant) THEN RETURN NULL; END IF;
    IF TG_OP = 'INSERT' AND TG_ARGV[0] = 'conversations' THEN
      -- Counted when opened in the organization's current period (one period lookup per organization).
      FOR r IN WITH periods AS (SELECT u.organization_id, p.period_start, p.period_end
                                FROM plan_usage u, LATERAL plan_period(u.organization_id) p
                                WHERE u.organization_id IN (SELECT DISTINCT organization_id FROM new_rows))
               SELECT n.organization_id AS org, count(*)::int AS n FROM new_rows n JOIN periods USING (organization_id)
               WHERE n.created_at >= periods.period_start AND n.created_at < periods.period_end GROUP BY n.organization_id LOOP
        PERFORM plan_usage_add('conversations', r.org, r.n);
      END LOOP;
    ELSIF TG_OP = 'INSERT' THEN
      FOR r IN SELECT organization_id AS org, count(*)::int AS n FROM new_rows GROUP BY organization_id LOOP
        PERFORM plan_usage_add(TG_ARGV[0], r.org, CASE WHEN TG_ARGV[0] = 'invitations' THEN 0 ELSE r.n END);
      END LOOP;
    ELSIF TG_ARGV[0] = 'conversations' THEN
      -- Only conversations opened in the counted period give their place back.
      FOR r IN SELECT o.organization_id AS org, count(*)::int AS n FROM old_rows o JOIN plan_usage u USING (organization_id)
               WHERE o.created_at >= u.period_start AND o.created_at < u.period_end GROUP BY o.organization_id LOOP
        PERFORM plan_usage_add('conversations', r.org, -r.n);
      END LOOP;
    ELSE
      FOR r IN SELECT organization_id AS org, count(*)::int AS n FROM old_rows GROUP BY organization_id LOOP
        PERFORM plan_usage_add(TG_ARGV[0], r.org, -r.n);
      END LOOP;
    END IF;
    RETURN NULL;
  END $$;`;

// Counters follow the subscription: created with it, recounted when its period moves, dropped with it.
const FOLLOW = `
  CREATE FUNCTION plan_usage_follow_subscription() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') AND (TG_OP = 'DELETE' OR OLD.organization_id <> NEW.organization_id) THEN
      DELETE FROM plan_usage WHERE organization_id = OLD.organization_id;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (OLD.organization_id <> NEW.organization_id
        OR OLD.current_period_start IS DISTINCT FROM NEW.current_period_start OR OLD.current_period_end IS DISTINCT FROM NEW.current_period_end
        OR NOT EXISTS (SELECT 1 FROM plan_usage WHERE organization_id = NEW.organization_id))) THEN
      PERFORM plan_usage_recount(NEW.organization_id);
    END IF;
    RETURN NULL;
  END $$;`;

// The platform's hook (Database.inTenant): canceled or past due after the period's end = read-only.
const WRITES_BLOCKED = `
  CREATE OR REPLACE FUNCTION organization_writes_blocked(org uuid) RETURNS boolean
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM subscriptions WHERE organization_id = org AND status IN ('canceled', 'past_due')
                   AND coalesce(current_period_end, '-infinity') <= now())
  $$;`;

// What the subscription view reads: usage against the plan, and whether the organization is over a
// limit (an inbound message kept, or a downgrade). Invoker's rights: row-level security applies.
// Without a subscription the usage is counted live and the limits are null (unlimited).
const USAGE_OF = `
  CREATE FUNCTION plan_usage_of(org uuid)
  RETURNS TABLE (contacts_used integer, contacts_limit integer, conversations_used integer, conversations_limit integer,
                 team_members_used integer, team_members_limit integer, period_start timestamptz, period_end timestamptz,
                 over_limit boolean, over_limit_at timestamptz)
  LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    WITH period AS (SELECT * FROM plan_period(org)),
    lim AS (SELECT pl.limit_contacts, pl.limit_conversations_per_month, pl.limit_team_members
            FROM subscriptions s JOIN subscription_plans pl ON pl.id = s.plan_id WHERE s.organization_id = org),
    used AS (
      SELECT coalesce(u.contacts, (SELECT count(*) FROM contacts WHERE organization_id = org))::int AS contacts,
             coalesce(u.team_members, (SELECT count(*) FROM memberships WHERE organization_id = org))::int AS team_members,
             CASE WHEN u.period_start = period.period_start AND u.period_end = period.period_end THEN u.conversations
                  ELSE (SELECT count(*) FROM conversations c WHERE c.organization_id = org
                        AND c.created_at >= period.period_start AND c.created_at < period.period_end)::int END AS conversations,
             u.over_limit_at
      FROM period LEFT JOIN plan_usage u ON u.organization_id = org)
    SELECT used.contacts, lim.limit_contacts, used.conversations, lim.limit_conversations_per_month,
           used.team_members, lim.limit_team_members, period.period_start, period.period_end,
           coalesce(used.contacts > lim.limit_contacts OR used.conversations > lim.limit_conversations_per_month
                    OR used.team_members > lim.limit_team_members, false),
           used.over_limit_at
    FROM period CROSS JOIN used LEFT JOIN lim ON true
  $$;`;

export const PLAN_LIMITS_FUNCTIONS = [
  PLAN_PERIOD,
  RECOUNT,
  ADD,
  CHANGED,
  FOLLOW,
  WRITES_BLOCKED,
  USAGE_OF,
  // Only the triggers change counters.
  `REVOKE EXECUTE ON FUNCTION plan_usage_recount(uuid), plan_usage_add(text, uuid, integer) FROM PUBLIC;`,
].join('\n');

const counted = (table: string, kind: string, del = true) => `
  CREATE TRIGGER ${table}_plan_usage_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION plan_usage_changed('${kind}');
  ${
    del
      ? `CREATE TRIGGER ${table}_plan_usage_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION plan_usage_changed('${kind}');`
      : ''
  }`;

export const PLAN_LIMITS_TRIGGERS = `
  ${counted('contacts', 'contacts')}
  ${counted('conversations', 'conversations')}
  ${counted('memberships', 'team_members')}
  ${counted('invitations', 'invitations', false)}
  CREATE TRIGGER subscriptions_plan_usage AFTER INSERT OR UPDATE OR DELETE ON subscriptions
    FOR EACH ROW EXECUTE FUNCTION plan_usage_follow_subscription();`;

export const PLAN_LIMITS_DOWN = `
  DROP TRIGGER subscriptions_plan_usage ON subscriptions;
  ${['contacts', 'conversations', 'memberships', 'invitations'].map((t) => `DROP TRIGGER ${t}_plan_usage_insert ON ${t};`).join('\n')}
  ${['contacts', 'conversations', 'memberships'].map((t) => `DROP TRIGGER ${t}_plan_usage_delete ON ${t};`).join('\n')}
  CREATE OR REPLACE FUNCTION organization_writes_blocked(org uuid) RETURNS boolean LANGUAGE sql STABLE AS 'SELECT false';
  DROP FUNCTION plan_usage_of(uuid), plan_usage_follow_subscription(), plan_usage_changed(), plan_usage_add(text, uuid, integer),
    plan_usage_recount(uuid), plan_period(uuid);
  DROP TABLE plan_usage;`;
