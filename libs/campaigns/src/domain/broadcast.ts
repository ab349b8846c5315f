import { Conflict, ValidationFailed } from '@engage/shared-kernel';
import type { Audience } from './audience';

export const BROADCAST_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

export const RECIPIENT_STATUSES = [
  'queued',
  'sent',
  'delivered',
  'read',
  'failed',
  'replied',
  'skipped_no_opt_in',
  'skipped_duplicate',
  'skipped_invalid',
] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

export type BroadcastAction = 'schedule' | 'start' | 'pause' | 'resume' | 'cancel';

// Where each action may start from; anything else is a 409.
export const ALLOWED_FROM: Record<BroadcastAction, readonly BroadcastStatus[]> = {
  schedule: ['draft', 'scheduled'],
  start: ['draft', 'scheduled'],
  pause: ['sending'],
  resume: ['paused'],
  cancel: ['draft', 'scheduled', 'sending', 'paused'],
};

export const transitionRefused = (action: BroadcastAction, status: string) =>
  Conflict('campaigns.invalid_transition', `A ${status} broadcast cannot ${action}: ${action} applies to ${ALLOWED_FROM[action].join(' or ')} broadcasts`, {
    status,
    action,
  });

export interface BroadcastRow {
  id: string;
  organization_id: string;
  name: string;
  channel_account_id: string;
  channel_kind: 'chat_app' | 'sms';
  audience: Record<string, unknown>;
  content: { text: string; media_url: string | null; media_kind: string | null };
  personalised: boolean;
  reply_window_hours: number;
  auto_pause_after_failures: number;
  failures_in_a_row: number;
  pause_reason: string | null;
  status: BroadcastStatus;
  scheduled_at: Date | null;
  started_at: Date | null;
  paused_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const audienceOf = (row: BroadcastRow): Audience => {
  const a = row.audience;
  if (typeof a.segment_id === 'string') return { segmentId: a.segment_id };
  if (Array.isArray(a.contact_ids)) return { contactIds: a.contact_ids as string[] };
  return { filter: String(a.filter ?? '') };
};

// Counts of a broadcast's recipients by status, every status present (0 when none).
export function countsOf(rows: { status: string; n: number }[]): Record<RecipientStatus, number> & { total: number } {
  const counts = Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Record<RecipientStatus, number>;
  let total = 0;
  for (const row of rows) {
    if (row.status in counts) counts[row.status as RecipientStatus] = row.n;
    total += row.n;
  }
  return { ...counts, total };
}

// The report's rates over the recipients whose message left (sent, delivered, read, replied) or failed.
export function ratesOf(counts: Record<RecipientStatus, number>) {
  const reached = counts.sent + counts.delivered + counts.read + counts.replied;
  const attempted = reached + counts.failed;
  const rate = (n: number) => (attempted === 0 ? null : Math.round((n / attempted) * 10_000) / 10_000);
  return {
    delivery_rate: rate(counts.delivered + counts.read + counts.replied),
    read_rate: rate(counts.read + counts.replied),
    reply_rate: rate(counts.replied),
  };
}

// A broadcast's own limits, set when it is created (docs/campaigns.md, "Replies" and "Auto-pause").
export const REPLY_WINDOW_HOURS = { min: 1, max: 720, default: 72 } as const;
export const AUTO_PAUSE_AFTER_FAILURES = { min: 0, max: 1000, default: 5 } as const;

export function parseWholeNumber(value: unknown, path: string, range: { min: number; max: number; default: number }): number {
  if (value === undefined) return range.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw ValidationFailed('campaigns.invalid_broadcast', `${path}: must be a whole number from ${range.min} to ${range.max}`, { path });
  }
  return value;
}

export const autoPauseReason = (failures: number, lastError: string) =>
  `paused after ${failures} provider failures in a row; the last: ${lastError}`.slice(0, 2000);
