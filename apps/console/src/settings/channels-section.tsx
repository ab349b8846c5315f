import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../api/rest';
import { Link, useLocation } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { ShownOnceDialog } from '../ui/shown-once-dialog';
import { ChannelDetails } from './channel-details';
import { CHANNEL_KINDS, type ChannelKind, channelBody, CHANNELS, createChannel, KIND_FIELDS, KIND_NAMES, listChannels, outboundQueue } from './channels.api';

// Settings → Channels (docs/messaging.md): the organization's channel accounts with their send
// queue (depth, next send, caps), created per kind; each account's own page has its pacing, pause
// and resume, the credentials' test and the inbound token. OWNER and ADMIN only.
export function ChannelsSection() {
  const { path } = useLocation();
  const id = path.startsWith('/settings/channels/') ? path.slice('/settings/channels/'.length) : null;
  return id ? <ChannelDetails id={id} /> : <ChannelList />;
}

function ChannelList() {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<ChannelKind | null>(null);
  const [token, setToken] = useState<{ token: string; path: string } | null>(null);
  const channels = useQuery({ queryKey: CHANNELS, queryFn: listChannels });
  const queue = useQuery({ queryKey: [...CHANNELS, 'queue'], queryFn: outboundQueue, refetchInterval: 10_000 });
  const create = useMutation({
    mutationFn: createChannel,
    onSuccess: (created) => {
      setKind(null);
      if (created.inbound_token) setToken({ token: created.inbound_token, path: created.inbound_path ?? '' });
      void queryClient.invalidateQueries({ queryKey: CHANNELS });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (kind) create.mutate(channelBody(kind, new FormData(event.currentTarget)));
  }
  const byAccount = new Map((queue.data ?? []).map((entry) => [entry.channel_account_id, entry]));
  return (
    <section aria-labelledby="channels-heading">
      <h2 id="channels-heading">Channels</h2>
      {kind ? (
        <form onSubmit={submit} aria-label={`New ${KIND_NAMES[kind]} channel`} className="narrow">
          <div className="field">
            <label htmlFor="channel-name">Name</label>
            <input id="channel-name" name="name" required maxLength={200} dir="auto" autoFocus />
          </div>
          {KIND_FIELDS[kind].map((field) => (
            <div className="field" key={field.name}>
              <label htmlFor={`channel-${field.name}`}>{field.label}</label>
              <input id={`channel-${field.name}`} name={field.name} type={field.secret ? 'password' : (field.type ?? 'text')} autoComplete="off" required />
            </div>
          ))}
          <ErrorAlert error={create.error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={create.isPending}>
              Create
            </button>
            <button type="button" onClick={() => setKind(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="actions" role="group" aria-label="Add a channel">
          {CHANNEL_KINDS.map((candidate) => (
            <button key={candidate} type="button" onClick={() => setKind(candidate)}>
              Add {KIND_NAMES[candidate]}
            </button>
          ))}
        </div>
      )}
      {token ? (
        <ShownOnceDialog
          title="Channel created"
          label="Inbound token"
          value={token.token}
          note={`The provider sends messages to ${token.path} with this token in X-Channel-Token. Copy it now: it is not shown again (rotate it on the channel's page if it is lost).`}
          onDone={() => setToken(null)}
        />
      ) : null}
      {channels.isPending ? <Loading what="channels" /> : null}
      <ErrorAlert error={channels.error ?? queue.error} />
      {channels.data ? (
        channels.data.length === 0 ? (
          <p className="muted">No channels yet.</p>
        ) : (
          <table aria-label="Channels">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">State</th>
                <th scope="col">Queued</th>
                <th scope="col">Next send</th>
                <th scope="col">Sent (hour / day)</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.map((channel) => {
                const entry = byAccount.get(channel.id);
                return (
                  <tr key={channel.id}>
                    <td dir="auto">
                      <Link to={`/settings/channels/${channel.id}`}>{channel.name}</Link>
                    </td>
                    <td>{KIND_NAMES[channel.kind] ?? channel.kind}</td>
                    <td>{!channel.is_active ? 'Off' : entry?.paused ? `Paused (${entry.paused_reason ?? 'manual'})` : 'Active'}</td>
                    <td>{entry?.depth.total ?? 0}</td>
                    <td>{entry?.next_send_at ? dateTime(entry.next_send_at) : '—'}</td>
                    <td>{entry ? `${entry.sent_last_hour} / ${entry.sent_today}` : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}
