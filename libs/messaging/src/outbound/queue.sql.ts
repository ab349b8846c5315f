import { rowList } from '@engage/platform';
import { MESSAGES } from '../infrastructure/exposed-tables';

// SQL of the paced send queue (docs/messaging.md, "The paced send queue"). SYSTEM statements run
// outside a tenant (the worker finds work in every organization); the others inside Database.inTenant.
// The worker's clock is a parameter (never now()), so pacing runs on an injected clock in tests.

// The origins that wait in the queue, in the order the queue serves them: bot and rule replies
// first (a live conversation), then re-engagement and the integrators' queued sends, then
// sequences, then broadcasts.
export const QUEUE_PRIORITY_SQL = `CASE m.origin WHEN 'bot' THEN 0 WHEN 'rule' THEN 0 WHEN 'reengagement' THEN 1 WHEN 'api_queued' THEN 1
  WHEN 'sequence' THEN 2 ELSE 3 END`;

export interface QueueAccountRow {
  id: string;
  organization_id: string;
  kind: string;
  is_active: boolean;
  created_at: Date;
  pacing: unknown;
  consecutive_failures: number;
}

// SYSTEM: accounts with queued messages that may send at $2 (not paused, not held by another worker,
// due), the longest-waiting first.
export const SYSTEM_DUE_ACCOUNTS = `
  SELECT a.id, a.organization_id FROM channel_accounts a
  WHERE a.paused_at IS NULL AND (a.next_send_at IS NULL OR a.next_send_at <= $2) AND (a.queue_lease_until IS NULL OR a.queue_lease_until < now())
    AND EXISTS (SELECT 1 FROM messages m WHERE m.channel_account_id = a.id AND m.status = 'QUEUED')
  ORDER BY a.next_send_at NULLS FIRST, a.id LIMIT $1`;

// SYSTEM: when the next account falls due after $1 (null: none waiting on a time).
export const SYSTEM_NEXT_DUE = `
  SELECT min(a.next_send_at) AS at FROM channel_accounts a
  WHERE a.paused_at IS NULL AND a.next_send_at > $1 AND EXISTS (SELECT 1 FROM messages m WHERE m.channel_account_id = a.id AND m.status = 'QUEUED')`;

// SYSTEM: the account taken for one send ($2 seconds, on the database's clock), so one provider call
// at most is in flight on it; due at $3.
export const SYSTEM_LEASE_ACCOUNT = `
  UPDATE channel_accounts SET queue_lease_until = now() + make_interval(secs => $2)
  WHERE id = $1 AND paused_at IS NULL AND (next_send_at IS NULL OR next_send_at <= $3) AND (queue_lease_until IS NULL OR queue_lease_until < now())
  RETURNING id, organization_id, kind, is_active, created_at, pacing, consecutive_failures`;

// The queue's one serving order, the worker's and the items listing's: by priority; then by turn,
// the k-th waiting message of every source (a broadcast, a sequence, a rule...) before the (k+1)-th
// of any, so sources of one priority take turns; within a turn the source served longest ago first
// (one not served in the last 24 hours before all); then age. Over rows `m` with `turn` and
// `served_at` (queuedWithTurns).
export const SERVING_ORDER = `${QUEUE_PRIORITY_SQL}, m.turn, m.served_at NULLS FIRST, m.created_at, m.id`;

// The waiting messages matching `where` (over messages `q`), each with its turn in its source and
// its source's last send in the 24 hours before `at`; `accounts` limits the sends read.
export const queuedWithTurns = (where: string, accounts: string, at: string) => `
  WITH served AS (
    SELECT channel_account_id, origin, origin_id, max(dispatched_at) AS at FROM messages
    WHERE ${accounts} AND dispatched_at > ${at} - interval '24 hours' GROUP BY channel_account_id, origin, origin_id),
  waiting AS (
    SELECT q.*, row_number() OVER (PARTITION BY q.channel_account_id, q.origin, q.origin_id ORDER BY q.created_at, q.id) AS turn
    FROM messages q WHERE ${where})
  SELECT w.*, s.at AS served_at FROM waiting w
  LEFT JOIN served s ON s.channel_account_id = w.channel_account_id AND s.origin = w.origin AND s.origin_id IS NOT DISTINCT FROM w.origin_id`;

// The next queued messages of the account $1 in serving order, with the conversation's last
// customer message (warm or cold recipient); $2 how many, $3 the worker's clock.
export const QUEUE_CANDIDATES = `
  SELECT m.*, c.last_customer_message_at AS customer_wrote_at
  FROM (${queuedWithTurns("q.channel_account_id = $1 AND q.status = 'QUEUED'", 'channel_account_id = $1', '$3::timestamptz')}) m
  JOIN conversations c ON c.id = m.conversation_id
  ORDER BY ${SERVING_ORDER} LIMIT $2`;

// What the caps and the per-recipient limits count: the account's sends of the 24 hours before $2,
// to whom, and which of them automated (one read serves both; the recipients' hour is a filter of it).
export const ACCOUNT_SENDS = `
  SELECT dispatched_at AS at, contact_id, origin NOT IN ('agent', 'api', 'scheduled') AS automated FROM messages
  WHERE channel_account_id = $1 AND dispatched_at > $2::timestamptz - interval '24 hours'`;

// A taken message's conversation's last customer message (by its key: a join would let a cached
// generic plan scan the organization's conversations).
const CUSTOMER_WROTE_AT = `(SELECT c.last_customer_message_at FROM conversations c WHERE c.id = m.conversation_id) AS customer_wrote_at`;

// Queued messages $1 taken for delivery at $2 (nothing else takes them: the status moves once), each
// with its conversation's last customer message as it is now (a reply withdraws some messages).
export const TAKE_QUEUED = `
  UPDATE messages m SET status = 'PENDING', dispatched_at = $2, updated_at = now() WHERE m.id = ANY($1::uuid[]) AND m.status = 'QUEUED'
  RETURNING ${rowList(MESSAGES, 'm')}, ${CUSTOMER_WROTE_AT}`;

// The outcomes of provider calls that ended ($1 ids, $2 status, $3 error, $4 provider id, $5
// metadata to add; kept only while PENDING, as FINISH_SEND does) and, in the same statement, the
// messages of the calls that follow them taken ($6 ids, each at $7, as TAKE_QUEUED).
export const FINISH_AND_TAKE = `
  WITH finished AS (
    UPDATE messages m SET status = o.status, error = o.error, updated_at = now(),
           external_id = CASE WHEN o.external_id IS NULL OR EXISTS (SELECT 1 FROM messages d WHERE d.organization_id = m.organization_id
                                AND d.channel_account_id = m.channel_account_id AND d.external_id = o.external_id AND d.id <> m.id) THEN NULL ELSE o.external_id END,
           metadata = m.metadata || o.metadata
                      || CASE WHEN o.external_id IS NOT NULL AND EXISTS (SELECT 1 FROM messages d WHERE d.organization_id = m.organization_id
                                AND d.channel_account_id = m.channel_account_id AND d.external_id = o.external_id AND d.id <> m.id)
                              THEN jsonb_build_object('duplicate_external_id', o.external_id) ELSE '{}'::jsonb END
    FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) AS o(id, status, error, external_id, metadata)
    WHERE m.id = ANY($1::uuid[]) AND m.id = o.id AND m.status = 'PENDING'
    RETURNING ${rowList(MESSAGES, 'm')}),
  taken AS (
    UPDATE messages m SET status = 'PENDING', dispatched_at = t.at, updated_at = now() FROM unnest($6::uuid[], $7::timestamptz[]) AS t(id, at)
    WHERE m.id = ANY($6::uuid[]) AND m.id = t.id AND m.status = 'QUEUED'
    RETURNING ${rowList(MESSAGES, 'm')}, ${CUSTOMER_WROTE_AT})
  SELECT false AS taken, f.*, NULL::timestamptz AS customer_wrote_at FROM finished f
  UNION ALL SELECT true AS taken, t.* FROM taken t`;

export const SET_EXPECTED = `UPDATE messages SET scheduled_for = $2 WHERE id = ANY($1::uuid[]) AND status = 'QUEUED'`;

// SYSTEM: the account handed back, to send again at $2 (null: as soon as a pass finds it).
export const SYSTEM_RELEASE_ACCOUNT = `UPDATE channel_accounts SET queue_lease_until = NULL, next_send_at = $2 WHERE id = $1`;

// SYSTEM: a provider outcome recorded on the account: its run of failures and, when it calls for
// it, a pause with the reason.
export const SYSTEM_RECORD_OUTCOME = `
  UPDATE channel_accounts SET queue_lease_until = NULL, next_send_at = NULL, consecutive_failures = $2,
    paused_at = CASE WHEN $3::text IS NULL THEN paused_at ELSE now() END,
    paused_reason = CASE WHEN $3::text IS NULL THEN paused_reason ELSE $3 END,
    updated_at = CASE WHEN $3::text IS NULL THEN updated_at ELSE now() END
  WHERE id = $1`;

// When the next queued message of the account could go at the earliest (a new one is not expected before it).
export const ACCOUNT_NEXT_SEND = `SELECT next_send_at, paused_at FROM channel_accounts WHERE id = $1`;

// The statuses of a send's rows (the paced sender waits for them to settle).
export const SEND_STATUSES = `SELECT status, error FROM messages WHERE id = ANY($1::uuid[])`;

// Whether a process holds the account for a send now.
export const ACCOUNT_LEASED = `SELECT coalesce(queue_lease_until > now(), false) AS leased FROM channel_accounts WHERE id = $1`;
