// The figures of a fault-injection run (scripts/faults.mjs), from what the providers' side, the
// database and the receiver recorded: pure functions of those records.
export const round = (n, digits = 2) => (n === null || n === undefined || Number.isNaN(n) ? null : Number(n.toFixed(digits)));

// The longest pause between two deliveries within [from, to] (ms since epoch), in seconds.
export function longestGap(deliveries, from, to) {
  const times = deliveries
    .map((d) => d.at)
    .filter((at) => at >= from && at <= to)
    .sort((a, b) => a - b);
  let gap = times.length ? Math.max(times[0] - from, to - times.at(-1)) : to - from;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
  return round(gap / 1000);
}

// First delivery of a message created after `createdAfter`, in seconds after `since`.
export function resumeSeconds(deliveries, createdAfter, since) {
  const first = deliveries.filter((d) => d.createdAt !== null && d.createdAt > createdAfter).reduce((min, d) => Math.min(min, d.at), Infinity);
  return first === Infinity ? null : round((first - since) / 1000);
}

export const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

// sent, acknowledged, stored, delivered ... for one channel's messages.
export function channelFigures(load, storedRows, receiver, channelId) {
  const stored = new Map(storedRows.map((r) => [r.external_id, r.n]));
  const acked = load.messages.filter((m) => m.acked !== null);
  const lost = acked.filter((m) => !stored.has(m.id)).map((m) => m.id);
  const storedTwice = [...stored].filter(([, n]) => n > 1).map(([id]) => id);
  const byMessage = new Map();
  const receipts = new Map();
  for (const d of receiver.deliveries) {
    if (d.channel !== channelId) continue;
    receipts.set(d.webhookId, (receipts.get(d.webhookId) ?? 0) + 1);
    if (!byMessage.has(d.externalId)) byMessage.set(d.externalId, new Set());
    byMessage.get(d.externalId).add(d.webhookId);
  }
  const sentIds = new Set(load.messages.map((m) => m.id));
  const ackedIds = new Set(acked.map((m) => m.id));
  return {
    sent: load.messages.length,
    acknowledged: acked.length,
    rejected: load.messages.filter((m) => m.rejected).length,
    unacknowledged: load.messages.filter((m) => m.gaveUp).length,
    retries: load.retries,
    statuses: load.statuses,
    stored: [...stored.keys()].filter((id) => sentIds.has(id)).length,
    stored_twice: storedTwice.length,
    lost: lost.length,
    lost_ids: lost.slice(0, 20),
    stored_twice_ids: storedTwice.slice(0, 20),
    stored_not_acknowledged: [...stored.keys()].filter((id) => sentIds.has(id) && !ackedIds.has(id)).length,
    delivered: [...byMessage.keys()].filter((id) => stored.has(id)).length,
    delivery_receipts: [...receipts.values()].reduce((a, b) => a + b, 0),
    delivered_duplicates: [...receipts.values()].reduce((sum, n) => sum + (n - 1), 0),
    webhook_ids_received_twice: [...receipts.values()].filter((n) => n > 1).length,
    messages_with_several_webhook_ids: [...byMessage.values()].filter((ids) => ids.size > 1).length,
    events_without_delivery: [...stored.keys()].filter((id) => !byMessage.has(id)).length,
  };
}

// Jobs run twice after the kill: the profile jobs the killed worker held (its `running` rows of
// `jobs` read right after the kill) that ran again, i.e. whose customer the Graph stand-in was asked
// for after the kill. The look-up itself was made twice when the first run had already called
// (a call the kill cut off, or one answered before the kill whose end was not recorded). Customers
// asked for twice otherwise: a job tried again after an error (e.g. during the database restart).
export function jobFigures(graph, kills) {
  const byPsid = new Map();
  for (const call of graph.calls) byPsid.set(call.psid, [...(byPsid.get(call.psid) ?? []), call]);
  const stranded = kills.flatMap((kill) => kill.stranded_psids.map((psid) => ({ psid, at: kill.at })));
  const rerun = stranded.filter(({ psid, at }) => byPsid.get(psid)?.some((c) => c.start >= at));
  const repeated = rerun.filter(({ psid, at }) => byPsid.get(psid).some((c) => c.start < at));
  const explained = new Set(stranded.map((s) => s.psid));
  for (const kill of kills) {
    for (const call of graph.calls) if (call.aborted !== null && call.aborted >= kill.at - 200 && call.aborted <= kill.at + 3000) explained.add(call.psid);
  }
  const twiceOther = [...byPsid].filter(([psid, calls]) => calls.length > 1 && !explained.has(psid)).map(([psid]) => psid);
  return {
    profile_lookups: graph.calls.length,
    customers_looked_up: byPsid.size,
    jobs_running_at_kill: stranded.length,
    jobs_run_twice_after_kill: rerun.length,
    lookups_made_twice_after_kill: repeated.length,
    lookups_made_twice_other: twiceOther.length,
    lookups_made_twice_other_psids: twiceOther.slice(0, 10),
    calls_cut_off: graph.calls.filter((c) => c.aborted !== null).length,
  };
}
