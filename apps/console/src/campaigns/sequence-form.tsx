import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { refusedPath } from '../api/errors';
import { CHANNELS, listChannels } from '../settings/channels.api';
import { ErrorAlert, Loading } from '../ui/page';
import type { Sequence, SequenceFields, SequenceStep } from './sequences.api';

interface StepDraft {
  key: number;
  days: string;
  hours: string;
  minutes: string;
  atTime: string;
  text: string;
  mediaUrl: string;
  mediaKind: string;
}

let nextKey = 1;
const blank = (): StepDraft => ({ key: nextKey++, days: '', hours: '', minutes: '', atTime: '', text: '', mediaUrl: '', mediaKind: 'image' });
const draftOf = (step: SequenceStep): StepDraft => ({
  key: nextKey++,
  days: step.delay.days ? String(step.delay.days) : '',
  hours: step.delay.hours ? String(step.delay.hours) : '',
  minutes: step.delay.minutes ? String(step.delay.minutes) : '',
  atTime: step.at_time ?? '',
  text: step.content.text,
  mediaUrl: step.content.media_url ?? '',
  mediaKind: step.content.media_kind ?? 'image',
});

// A step as the API takes it: empty units left out, the rest sent as typed for the API to check.
function stepOf(draft: StepDraft, media: boolean): SequenceStep {
  const delay = Object.fromEntries(
    (['days', 'hours', 'minutes'] as const).filter((unit) => draft[unit].trim() !== '').map((unit) => [unit, Number(draft[unit])]),
  );
  const content: SequenceStep['content'] = { text: draft.text };
  if (media && draft.mediaUrl.trim() !== '') Object.assign(content, { media_url: draft.mediaUrl.trim(), media_kind: draft.mediaKind });
  return { delay, ...(draft.atTime.trim() !== '' ? { at_time: draft.atTime.trim() } : {}), content };
}

// Whether the refusal's path is this part or inside it (`steps[1]` holds `steps[1].at_time`).
const inside = (path: string | null, prefix: string) => !!path && (path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`));

// Create or edit a sequence: name, channel (only when new: the account cannot change), steps with
// their delays, time of day and content, and the exits. The API checks it all; its refusal names
// the part (`steps[1].at_time`), and the message is shown inside that part.
export function SequenceForm({
  sequence,
  error,
  pending,
  onSave,
  onCancel,
}: {
  sequence: Sequence | null;
  error: unknown;
  pending: boolean;
  onSave: (fields: SequenceFields) => void;
  onCancel?: () => void;
}) {
  const channels = useQuery({ queryKey: CHANNELS, queryFn: listChannels, enabled: !sequence });
  const usable = (channels.data ?? []).filter((channel) => channel.kind === 'chat_app' || channel.kind === 'sms');
  const [channelId, setChannelId] = useState('');
  const account = sequence?.channel_account_id ?? (channelId || usable[0]?.id || '');
  const kind = sequence?.channel_kind ?? usable.find((channel) => channel.id === account)?.kind;
  const [steps, setSteps] = useState<StepDraft[]>(sequence ? sequence.steps.map(draftOf) : [blank()]);
  const [reply, setReply] = useState(sequence?.exit_on.reply ?? true);
  const [resolved, setResolved] = useState(sequence?.exit_on.conversation_resolved ?? false);
  const path = refusedPath(error);
  const media = kind !== 'sms';
  const change = (index: number, fields: Partial<StepDraft>) => setSteps(steps.map((step, at) => (at === index ? { ...step, ...fields } : step)));
  function move(index: number, by: number) {
    const next = [...steps];
    [next[index], next[index + by]] = [next[index + by], next[index]];
    setSteps(next);
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '');
    onSave({
      name,
      ...(sequence ? {} : { channel_account_id: account }),
      steps: steps.map((step) => stepOf(step, media)),
      exit_on: { reply, conversation_resolved: resolved },
    });
  }
  if (!sequence && channels.isPending) return <Loading what="channels" />;
  const placed = path !== null && (path === 'name' || path === 'channel_account_id' || inside(path, 'steps') || inside(path, 'exit_on'));
  return (
    <form onSubmit={submit} aria-label={sequence ? 'Edit sequence' : 'New sequence'} className="sequence-form">
      <ErrorAlert error={channels.error} />
      <div className="field narrow">
        <label htmlFor="sequence-name">Name</label>
        <input id="sequence-name" name="name" required maxLength={200} dir="auto" defaultValue={sequence?.name ?? ''} />
        {path === 'name' ? <ErrorAlert error={error} /> : null}
      </div>
      {sequence ? null : (
        <div className="field narrow">
          <label htmlFor="sequence-channel">Channel</label>
          <select id="sequence-channel" value={account} onChange={(event) => setChannelId(event.target.value)} required>
            {usable.map((channel) => (
              <option key={channel.id} value={channel.id}>
                {channel.name} ({channel.kind === 'sms' ? 'SMS' : 'chat app'})
              </option>
            ))}
          </select>
          {usable.length === 0 ? <p className="muted small">Sequences go over a chat-app or SMS channel: add one in Settings → Channels.</p> : null}
          {path === 'channel_account_id' ? <ErrorAlert error={error} /> : null}
        </div>
      )}
      <p className="small muted">
        Texts may name contact fields: {'{{contact.first_name | there}}'} (after the bar, what to write when the field is empty),{' '}
        {'{{contact.custom_fields.city}}'}. The first step&apos;s delay counts from the enrolment, each later one&apos;s from the step before.
      </p>
      {inside(path, 'steps') && !/^steps\[\d+\]/.test(path ?? '') ? <ErrorAlert error={error} /> : null}
      <ol className="sequence-steps">
        {steps.map((step, index) => {
          const label = `Step ${index + 1}`;
          const id = `step-${step.key}`;
          const invalid = inside(path, `steps[${index}]`);
          return (
            <li key={step.key}>
              <fieldset aria-invalid={invalid || undefined} className={invalid ? 'invalid' : undefined}>
                <legend>{label}</legend>
                <div className="filters">
                  {(['days', 'hours', 'minutes'] as const).map((unit) => (
                    <div className="field" key={unit}>
                      <label htmlFor={`${id}-${unit}`}>
                        {label} delay ({unit})
                      </label>
                      <input
                        id={`${id}-${unit}`}
                        type="number"
                        min={0}
                        inputMode="numeric"
                        className="short"
                        value={step[unit]}
                        placeholder="0"
                        onChange={(event) => change(index, { [unit]: event.target.value })}
                      />
                    </div>
                  ))}
                  <div className="field">
                    <label htmlFor={`${id}-at`}>{label} at time (HH:MM, optional)</label>
                    <input
                      id={`${id}-at`}
                      className="short"
                      value={step.atTime}
                      placeholder="10:00"
                      onChange={(event) => change(index, { atTime: event.target.value })}
                    />
                  </div>
                </div>
                <div className="field">
                  <label htmlFor={`${id}-text`}>{label} text</label>
                  <textarea
                    id={`${id}-text`}
                    rows={3}
                    maxLength={kind === 'sms' ? 1600 : 4096}
                    value={step.text}
                    dir="auto"
                    required
                    onChange={(event) => change(index, { text: event.target.value })}
                  />
                </div>
                {media ? (
                  <div className="filters">
                    <div className="field grow">
                      <label htmlFor={`${id}-media`}>{label} media address (optional)</label>
                      <input id={`${id}-media`} type="url" value={step.mediaUrl} onChange={(event) => change(index, { mediaUrl: event.target.value })} />
                    </div>
                    <div className="field">
                      <label htmlFor={`${id}-media-kind`}>{label} media kind</label>
                      <select id={`${id}-media-kind`} value={step.mediaKind} onChange={(event) => change(index, { mediaKind: event.target.value })}>
                        <option value="image">image</option>
                        <option value="video">video</option>
                        <option value="document">document</option>
                      </select>
                    </div>
                  </div>
                ) : null}
                {invalid ? <ErrorAlert error={error} /> : null}
                <div className="actions">
                  {index > 0 ? (
                    <button type="button" onClick={() => move(index, -1)}>
                      Move step {index + 1} earlier
                    </button>
                  ) : null}
                  {index < steps.length - 1 ? (
                    <button type="button" onClick={() => move(index, 1)}>
                      Move step {index + 1} later
                    </button>
                  ) : null}
                  {steps.length > 1 ? (
                    <button type="button" onClick={() => setSteps(steps.filter((_, at) => at !== index))}>
                      Remove step {index + 1}
                    </button>
                  ) : null}
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      {steps.length < 20 ? (
        <button type="button" onClick={() => setSteps([...steps, blank()])}>
          Add step
        </button>
      ) : null}
      <fieldset className="plain">
        <legend>Exit a contact&apos;s run when</legend>
        <label className="check">
          <input type="checkbox" checked={reply} onChange={(event) => setReply(event.target.checked)} /> the contact replies
        </label>
        <label className="check">
          <input type="checkbox" checked={resolved} onChange={(event) => setResolved(event.target.checked)} /> the conversation is resolved
        </label>
        <label className="check">
          <input type="checkbox" checked disabled /> the contact opts out (always)
        </label>
        {inside(path, 'exit_on') ? <ErrorAlert error={error} /> : null}
      </fieldset>
      {sequence && sequence.status !== 'draft' ? (
        <p className="note" role="note">
          This sequence is {sequence.status}: saving a change of its steps or exits makes version {sequence.version + 1}. New enrolments take it; running ones
          keep the version they started on.
        </p>
      ) : null}
      {error && !placed ? <ErrorAlert error={error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={pending || !account}>
          {sequence ? 'Save changes' : 'Create sequence'}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
