// Pacing that lets every queued message go at once (no gaps, caps, warm-up, quiet hours or
// per-recipient limits): for tests of the queue's order, claims and outcomes rather than its pace.
export const UNPACED_PACING = {
  gap_seconds: [0, 0],
  cold_gap_seconds: [0, 0],
  per_hour: null,
  per_day: null,
  warmup: false,
  per_recipient_min_gap_seconds: 0,
  per_recipient_per_hour: 3600,
  quiet_hours: null,
};
