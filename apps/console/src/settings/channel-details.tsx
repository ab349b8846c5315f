import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../api/rest';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { ShownOnceDialog } from '../ui/shown-once-dialog';
import { PacingForm } from './pacing-form';
import {
  changeChannel,
  CHANNELS,
  getChannel,
  KIND_NAMES,
  outboundQueue,
  pauseChannel,
  type QueueAccount,
  resumeChannel,
  rotateToken,
  testChannel,
} from './channels.api';

const CHECKED_KINDS = ['messenger', 'instagram', 'email', 'sms'];

// One channel account: its queue now, pause and resume, on and off, the credentials' test, the
// inbound token (chat app) and the pacing of its automated sends.
export function ChannelDetails({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const account = useQuery({ queryKey: [...CHANNELS, id], queryFn: () => getChannel(id) });
  const queue = useQuery({ queryKey: [...CHANNELS, 'queue'], queryFn: outboundQueue, refetchInterval: 10_000 });
  const settle = (answer: QueueAccount) => {
    queryClient.setQueryData([...CHANNELS, id], answer);
    void queryClient.invalidateQueries({ queryKey: CHANNELS });
  };
  const pause = useMutation({ mutationFn: (reason: string) => pauseChannel(id, reason), onSuccess: settle });
  const resume = useMutation({ mutationFn: () => resumeChannel(id), onSuccess: settle });
  const toggle = useMutation({ mutationFn: (active: boolean) => changeChannel(id, { is_active: active }), onSuccess: settle });
  const test = useMutation({
    mutationFn: () => testChannel(id),
    onMutate: () => setNote(null),
    onSuccess: (answer) => setNote(answer.ok ? 'The credentials work.' : `The provider refused: ${answer.error ?? 'no reason given'}.`),
  });
  const rotate = useMutation({ mutationFn: () => rotateToken(id), onSuccess: (answer) => setToken(answer.inbound_token ?? null) });
  function submitPause(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    pause.mutate(String(new FormData(event.currentTarget).get('reason') ?? '').trim());
  }
  if (account.isPending) return <Loading what="the channel" />;
  if (account.error) return <ErrorAlert error={account.error} />;
  const channel = account.data;
  const entry = queue.data?.find((candidate) => candidate.channel_account_id === id);
  return (
    <section aria-labelledby="channel-heading">
      <p>
        <Link to="/settings/channels">Back to channels</Link>
      </p>
      <h2 id="channel-heading" dir="auto">
        {channel.name}
      </h2>
      <dl className="record-fields">
        <div>
          <dt>Kind</dt>
          <dd>{KIND_NAMES[channel.kind] ?? channel.kind}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>{!channel.is_active ? 'Off' : channel.paused ? `Paused since ${dateTime(channel.paused_at)}: ${channel.paused_reason}` : 'Active'}</dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd>
            {entry ? entry.depth.total : '—'}
            {entry && entry.depth.total > 0
              ? ` (${Object.entries(entry.depth.by_origin)
                  .map(([origin, count]) => `${origin} ${count}`)
                  .join(', ')})`
              : ''}
          </dd>
        </div>
        <div>
          <dt>Next send</dt>
          <dd>{entry?.next_send_at ? dateTime(entry.next_send_at) : '—'}</dd>
        </div>
        <div>
          <dt>Last queued message expected</dt>
          <dd>{entry?.eta_last ? dateTime(entry.eta_last) : '—'}</dd>
        </div>
        <div>
          <dt>Sent in the last hour</dt>
          <dd>{entry ? `${entry.sent_last_hour} of ${entry.caps.per_hour ?? 'no cap'}` : '—'}</dd>
        </div>
        <div>
          <dt>Sent in the last 24 hours</dt>
          <dd>{entry ? `${entry.sent_today} of ${entry.caps.per_day ?? 'no cap'}` : '—'}</dd>
        </div>
      </dl>
      <div className="actions">
        {channel.paused ? (
          <button type="button" className="primary" onClick={() => resume.mutate()} disabled={resume.isPending}>
            Resume sending
          </button>
        ) : null}
        <button type="button" onClick={() => toggle.mutate(!channel.is_active)} disabled={toggle.isPending}>
          {channel.is_active ? 'Turn off' : 'Turn on'}
        </button>
        {CHECKED_KINDS.includes(channel.kind) ? (
          <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
            Test credentials
          </button>
        ) : null}
        {channel.kind === 'chat_app' ? (
          <button type="button" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
            Rotate inbound token
          </button>
        ) : null}
      </div>
      {channel.paused ? null : (
        <form onSubmit={submitPause} className="filters" aria-label="Pause sending">
          <div className="field">
            <label htmlFor="pause-reason">Reason (optional)</label>
            <input id="pause-reason" name="reason" maxLength={200} dir="auto" />
          </div>
          <div className="field">
            <button type="submit" disabled={pause.isPending}>
              Pause sending
            </button>
          </div>
        </form>
      )}
      <ErrorAlert error={pause.error ?? resume.error ?? toggle.error ?? test.error ?? rotate.error} />
      {note ? (
        <p role="status" dir="auto">
          {note}
        </p>
      ) : null}
      {token ? (
        <ShownOnceDialog
          title="Inbound token rotated"
          label="Inbound token"
          value={token}
          note="The old token no longer works. Give this one to the provider now: it is not shown again."
          onDone={() => setToken(null)}
        />
      ) : null}
      <PacingForm account={channel} onSaved={settle} />
    </section>
  );
}
