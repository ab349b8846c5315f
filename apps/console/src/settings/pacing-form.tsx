import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../ui/page';
import { changeChannel, type Pacing, type QueueAccount } from './channels.api';

const numberOrNull = (value: FormDataEntryValue | null): number | null => (value === null || String(value).trim() === '' ? null : Number(value));

// The pacing of the account's automated sends (docs/messaging.md, "The paced send queue"): the
// policy in force is shown; a save sends every field, checked by the API, whose refusal names the
// field (pacing.gap_seconds ...). "Back to the defaults" drops every override.
export function PacingForm({ account, onSaved }: { account: QueueAccount; onSaved: (answer: QueueAccount) => void }) {
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (pacing: Partial<Pacing> | null) => changeChannel(account.id, { pacing }),
    onMutate: () => setSaved(false),
    onSuccess: (answer) => {
      setSaved(true);
      onSaved(answer);
    },
  });
  const pacing = account.pacing;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const number = (name: string) => numberOrNull(form.get(name));
    const start = String(form.get('quiet_start') ?? '');
    const end = String(form.get('quiet_end') ?? '');
    const change: Partial<Pacing> = {
      gap_seconds: [number('gap_min') ?? 0, number('gap_max') ?? 0],
      cold_gap_seconds: [number('cold_min') ?? 0, number('cold_max') ?? 0],
      per_hour: number('per_hour'),
      per_day: number('per_day'),
      warmup: form.get('warmup') === 'on',
      per_recipient_min_gap_seconds: number('recipient_gap') ?? 0,
      per_recipient_per_hour: number('recipient_hour') ?? 0,
      quiet_hours: start || end ? { start, end } : null,
      auto_pause_after_failures: number('auto_pause') ?? 0,
    };
    if (account.kind === 'chat_app') change.receivers_per_call = number('receivers') ?? 1;
    if (account.kind === 'sms') change.per_second = number('per_second');
    save.mutate(change);
  }
  const field = (name: string, label: string, value: number | null, hint?: string) => (
    <div className="field">
      <label htmlFor={`pacing-${name}`}>{label}</label>
      <input id={`pacing-${name}`} name={name} inputMode="decimal" defaultValue={value ?? ''} placeholder={hint} />
    </div>
  );
  return (
    <form onSubmit={submit} aria-labelledby="pacing-heading" key={JSON.stringify(pacing)}>
      <h3 id="pacing-heading">Pacing of automated sends</h3>
      <p className="muted small">
        Rules, bots, sequences, broadcasts, re-engagement and queued API sends wait here and go one at a time with a random pause between them; agents&apos;
        replies go at once but count toward the caps. An empty cap means none.
      </p>
      <div className="filters">
        {field('gap_min', 'Gap from (s)', pacing.gap_seconds[0])}
        {field('gap_max', 'Gap to (s)', pacing.gap_seconds[1])}
        {field('cold_min', 'Cold gap from (s)', pacing.cold_gap_seconds[0])}
        {field('cold_max', 'Cold gap to (s)', pacing.cold_gap_seconds[1])}
      </div>
      <div className="filters">
        {field('per_hour', 'Per hour', pacing.per_hour, 'no cap')}
        {field('per_day', 'Per day', pacing.per_day, 'no cap')}
        {field('recipient_gap', 'Per recipient, gap (s)', pacing.per_recipient_min_gap_seconds)}
        {field('recipient_hour', 'Per recipient, per hour', pacing.per_recipient_per_hour)}
      </div>
      <div className="filters">
        <div className="field">
          <label htmlFor="pacing-quiet-start">Quiet hours from</label>
          <input id="pacing-quiet-start" name="quiet_start" type="time" defaultValue={pacing.quiet_hours?.start ?? ''} />
        </div>
        <div className="field">
          <label htmlFor="pacing-quiet-end">Quiet hours to</label>
          <input id="pacing-quiet-end" name="quiet_end" type="time" defaultValue={pacing.quiet_hours?.end ?? ''} />
        </div>
        {field('auto_pause', 'Pause after failures in a row', pacing.auto_pause_after_failures)}
        {account.kind === 'chat_app' ? field('receivers', 'Receivers per call', pacing.receivers_per_call) : null}
        {account.kind === 'sms' ? field('per_second', 'Per second', pacing.per_second, '1') : null}
      </div>
      <div className="field checkbox">
        <label>
          <input type="checkbox" name="warmup" defaultChecked={pacing.warmup} /> Warm-up for a new number (at most 50, 200, then 500 a day over its first 10
          days)
        </label>
      </div>
      <ErrorAlert error={save.error} />
      {saved ? <p role="status">Pacing saved.</p> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save pacing
        </button>
        <button type="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
          Back to the defaults
        </button>
      </div>
    </form>
  );
}
