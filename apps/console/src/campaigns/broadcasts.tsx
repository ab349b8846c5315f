import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useDeferredValue, useState } from 'react';
import { dateTime } from '../api/rest';
import { Link, navigate } from '../router';
import { CHANNELS, listChannels } from '../settings/channels.api';
import { ErrorAlert, Loading } from '../ui/page';
import {
  act,
  type Broadcast,
  BROADCASTS,
  createBroadcast,
  downloadRecipients,
  getBroadcast,
  getReport,
  listBroadcasts,
  listSegments,
  previewAudience,
  previewContent,
  SEGMENTS,
} from './campaigns.api';
import { PreviewFigures } from './segments';
import { Chart } from '../ui/charts';
import { FilterBuilder } from '../ui/filter-builder';
import { ContactChoices } from './contact-choices';

const SHOWN = ['queued', 'sent', 'delivered', 'read', 'replied', 'failed'];
const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`);

export function BroadcastList({ editable }: { editable: boolean }) {
  const broadcasts = useQuery({ queryKey: BROADCASTS, queryFn: listBroadcasts, refetchInterval: 10_000 });
  return (
    <section aria-labelledby="broadcasts-heading">
      <h2 id="broadcasts-heading">Broadcasts</h2>
      {editable ? (
        <button type="button" className="primary" onClick={() => navigate('/campaigns/broadcasts/new')}>
          New broadcast
        </button>
      ) : null}
      {broadcasts.isPending ? <Loading what="broadcasts" /> : null}
      <ErrorAlert error={broadcasts.error} />
      {broadcasts.data && broadcasts.data.length > 0 ? (
        <table aria-label="Broadcasts">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Recipients</th>
              <th scope="col">Sent</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {broadcasts.data.map((broadcast) => (
              <tr key={broadcast.id}>
                <td dir="auto">
                  <Link to={`/campaigns/broadcasts/${broadcast.id}`}>{broadcast.name}</Link>
                </td>
                <td>{broadcast.status}</td>
                <td>{broadcast.counts.total ?? 0}</td>
                <td>{(broadcast.counts.sent ?? 0) + (broadcast.counts.delivered ?? 0) + (broadcast.counts.read ?? 0) + (broadcast.counts.replied ?? 0)}</td>
                <td>{dateTime(broadcast.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : broadcasts.data ? (
        <p className="muted">No broadcasts yet.</p>
      ) : null}
    </section>
  );
}

// Compose: name, channel (chat app or SMS), audience (a segment, a filter not saved as one, or
// contacts chosen one by one), text
// with contact fields, media on the chat app, the reply window and the auto-pause; the audience's
// reach and the text as sent (SMS: encoding and parts) are previewed by the API.
export function NewBroadcast() {
  const queryClient = useQueryClient();
  const channels = useQuery({ queryKey: CHANNELS, queryFn: listChannels });
  const segments = useQuery({ queryKey: SEGMENTS, queryFn: listSegments });
  const usable = (channels.data ?? []).filter((channel) => channel.kind === 'chat_app' || channel.kind === 'sms');
  const [channelId, setChannelId] = useState('');
  const [segmentId, setSegmentId] = useState('');
  const [audienceKind, setAudienceKind] = useState<'segment' | 'filter' | 'contacts'>('segment');
  const [filter, setFilter] = useState('');
  const [chosenContacts, setChosenContacts] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [media, setMedia] = useState({ url: '', kind: 'image' });
  const account = channelId || usable[0]?.id || '';
  const segment = segmentId || segments.data?.[0]?.id || '';
  const deferredText = useDeferredValue(text);
  const deferredFilter = useDeferredValue(filter);
  const chosen =
    audienceKind === 'segment' ? { segment_id: segment } : audienceKind === 'filter' ? { filter: deferredFilter } : { contact_ids: chosenContacts };
  const chatApp = usable.find((channel) => channel.id === account)?.kind === 'chat_app';
  const audience = useQuery({
    queryKey: ['audience-preview', chosen],
    queryFn: () => previewAudience(chosen),
    enabled: audienceKind === 'filter' || (audienceKind === 'segment' ? !!segment : chosenContacts.length > 0),
    retry: false,
  });
  const content = useQuery({
    queryKey: ['content-preview', account, deferredText],
    queryFn: () => previewContent({ channel_account_id: account, text: deferredText }),
    enabled: !!account && deferredText.trim() !== '',
    retry: false,
  });
  const create = useMutation({
    mutationFn: createBroadcast,
    onSuccess: (broadcast) => {
      void queryClient.invalidateQueries({ queryKey: BROADCASTS });
      navigate(`/campaigns/broadcasts/${broadcast.id}`, { replace: true });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const whole = (key: string) => (String(form.get(key) ?? '') === '' ? {} : { [key]: Number(form.get(key)) });
    create.mutate({
      name: String(form.get('name') ?? ''),
      channel_account_id: account,
      audience: audienceKind === 'segment' ? { segment_id: segment } : audienceKind === 'filter' ? { filter } : { contact_ids: chosenContacts },
      content: { text, ...(chatApp && media.url.trim() ? { media_url: media.url.trim(), media_kind: media.kind } : {}) },
      ...whole('reply_window_hours'),
      ...whole('auto_pause_after_failures'),
    });
  }
  if (channels.isPending || segments.isPending) return <Loading what="channels and segments" />;
  return (
    <section aria-labelledby="new-broadcast-heading">
      <p>
        <Link to="/campaigns">Back to campaigns</Link>
      </p>
      <h2 id="new-broadcast-heading">New broadcast</h2>
      <ErrorAlert error={channels.error ?? segments.error} />
      {usable.length === 0 ? <p className="muted">Broadcasts go over a chat-app or SMS channel: add one in Settings → Channels.</p> : null}
      {segments.data?.length === 0 && audienceKind === 'segment' ? <p className="muted">No segment yet: save one, or choose a filter.</p> : null}
      <form onSubmit={submit} aria-labelledby="new-broadcast-heading" className="narrow">
        <div className="field">
          <label htmlFor="broadcast-name">Name</label>
          <input id="broadcast-name" name="name" required maxLength={200} dir="auto" />
        </div>
        <div className="field">
          <label htmlFor="broadcast-channel">Channel</label>
          <select id="broadcast-channel" value={account} onChange={(event) => setChannelId(event.target.value)}>
            {usable.map((channel) => (
              <option key={channel.id} value={channel.id}>
                {channel.name} ({channel.kind === 'sms' ? 'SMS' : 'chat app'})
              </option>
            ))}
          </select>
        </div>
        <fieldset className="checklist">
          <legend>Audience</legend>
          <label>
            <input type="radio" name="audience-kind" checked={audienceKind === 'segment'} onChange={() => setAudienceKind('segment')} /> A segment
          </label>
          <label>
            <input type="radio" name="audience-kind" checked={audienceKind === 'filter'} onChange={() => setAudienceKind('filter')} /> A filter
          </label>
          <label>
            <input type="radio" name="audience-kind" checked={audienceKind === 'contacts'} onChange={() => setAudienceKind('contacts')} /> Chosen contacts
          </label>
        </fieldset>
        {audienceKind === 'segment' ? (
          <div className="field">
            <label htmlFor="broadcast-segment">Audience (segment)</label>
            <select id="broadcast-segment" value={segment} onChange={(event) => setSegmentId(event.target.value)}>
              {segments.data?.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
            </select>
          </div>
        ) : audienceKind === 'filter' ? (
          <FilterBuilder value={filter} onChange={setFilter} placeholder="tags=cs.{vip}" />
        ) : (
          <ContactChoices id="broadcast-contacts" legend="Contacts to send to" chosen={chosenContacts} onChange={setChosenContacts} />
        )}
        {audience.data ? <PreviewFigures preview={audience.data} /> : null}
        <div className="field">
          <label htmlFor="broadcast-text">Text</label>
          <textarea id="broadcast-text" rows={4} maxLength={4096} value={text} onChange={(event) => setText(event.target.value)} dir="auto" required />
          <span className="small muted">
            Contact fields: {'{{contact.first_name | there}}'}, {'{{contact.custom_fields.city}}'}.
          </span>
        </div>
        {chatApp ? (
          <div className="filters">
            <div className="field">
              <label htmlFor="broadcast-media">Media address (optional)</label>
              <input
                id="broadcast-media"
                type="url"
                value={media.url}
                onChange={(event) => setMedia({ ...media, url: event.target.value })}
                placeholder="https://cdn.example.com/sale.jpg"
                maxLength={2048}
              />
            </div>
            <div className="field">
              <label htmlFor="broadcast-media-kind">Media kind</label>
              <select id="broadcast-media-kind" value={media.kind} onChange={(event) => setMedia({ ...media, kind: event.target.value })}>
                <option value="image">Image</option>
                <option value="video">Video</option>
                <option value="document">Document</option>
              </select>
            </div>
          </div>
        ) : null}
        <div className="filters">
          <div className="field">
            <label htmlFor="broadcast-reply-window">Replies count for (hours)</label>
            <input id="broadcast-reply-window" name="reply_window_hours" type="number" min={1} max={720} step={1} placeholder="72" />
          </div>
          <div className="field">
            <label htmlFor="broadcast-auto-pause">Pause after failures in a row</label>
            <input id="broadcast-auto-pause" name="auto_pause_after_failures" type="number" min={0} step={1} placeholder="5" />
          </div>
        </div>
        {content.data ? (
          <div className="preview" aria-label="As sent">
            <p className="small muted">
              As sent to a contact without those fields{content.data.encoding ? `: ${content.data.encoding}, ${content.data.segments} SMS part(s)` : ''}
            </p>
            <p dir="auto">{content.data.text}</p>
          </div>
        ) : null}
        <ErrorAlert error={create.error ?? content.error ?? audience.error} />
        <button
          type="submit"
          className="primary"
          disabled={create.isPending || !account || (audienceKind === 'segment' ? !segment : audienceKind === 'contacts' && chosenContacts.length === 0)}
        >
          Save draft
        </button>
      </form>
    </section>
  );
}

// The report's bars, in the order a recipient moves through them, then the ends.
const REPORT_STATUSES = ['queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped_no_opt_in', 'skipped_duplicate', 'skipped_invalid'];

// One broadcast: its live counts, the actions its status allows, the report and the recipients' CSV.
export function BroadcastDetails({ id, editable }: { id: string; editable: boolean }) {
  const queryClient = useQueryClient();
  const broadcast = useQuery({
    queryKey: [...BROADCASTS, id],
    queryFn: () => getBroadcast(id),
    refetchInterval: (query) => ((query.state.data as Broadcast | undefined)?.status === 'sending' ? 2_000 : 15_000),
  });
  const report = useQuery({ queryKey: [...BROADCASTS, id, 'report'], queryFn: () => getReport(id), refetchInterval: 5_000 });
  const action = useMutation({
    mutationFn: (change: { action: 'start' | 'pause' | 'resume' | 'cancel' | 'schedule'; body?: Record<string, unknown> }) =>
      act(id, change.action, change.body),
    onSuccess: (answer) => {
      queryClient.setQueryData([...BROADCASTS, id], answer);
      void queryClient.invalidateQueries({ queryKey: BROADCASTS });
    },
  });
  const download = useMutation({ mutationFn: () => downloadRecipients(id, broadcast.data?.name ?? 'broadcast') });
  const [at, setAt] = useState('');
  if (broadcast.isPending) return <Loading what="the broadcast" />;
  if (broadcast.error) return <ErrorAlert error={broadcast.error} />;
  const current = broadcast.data;
  const total = current.counts.total ?? 0;
  const done = total - (current.counts.queued ?? 0);
  const can = (statuses: Broadcast['status'][]) => editable && statuses.includes(current.status);
  return (
    <section aria-labelledby="broadcast-heading">
      <p>
        <Link to="/campaigns">Back to campaigns</Link>
      </p>
      <h2 id="broadcast-heading" dir="auto">
        {current.name}
      </h2>
      <p role="status">
        Status: <strong>{current.status}</strong>
        {current.scheduled_at && current.status === 'scheduled' ? `, starts ${dateTime(current.scheduled_at)}` : ''}
      </p>
      {total > 0 ? (
        <div className="progress">
          <label htmlFor="broadcast-progress">Progress</label>
          <progress id="broadcast-progress" max={total} value={done}>
            {done} of {total}
          </progress>
          <span className="small muted">
            {' '}
            {done} of {total}
          </span>
        </div>
      ) : null}
      <dl className="figures">
        {SHOWN.map((status) => (
          <div key={status}>
            <dt>{status}</dt>
            <dd>{current.counts[status] ?? 0}</dd>
          </div>
        ))}
        <div>
          <dt>skipped</dt>
          <dd>{(current.counts.skipped_no_opt_in ?? 0) + (current.counts.skipped_duplicate ?? 0) + (current.counts.skipped_invalid ?? 0)}</dd>
        </div>
      </dl>
      <div className="actions">
        {can(['draft', 'scheduled']) ? (
          <button type="button" className="primary" onClick={() => action.mutate({ action: 'start' })} disabled={action.isPending}>
            Start now
          </button>
        ) : null}
        {can(['sending']) ? (
          <button type="button" onClick={() => action.mutate({ action: 'pause' })} disabled={action.isPending}>
            Pause
          </button>
        ) : null}
        {can(['paused']) ? (
          <button type="button" className="primary" onClick={() => action.mutate({ action: 'resume' })} disabled={action.isPending}>
            Resume
          </button>
        ) : null}
        {can(['draft', 'scheduled', 'sending', 'paused']) ? (
          <button type="button" onClick={() => action.mutate({ action: 'cancel' })} disabled={action.isPending}>
            Cancel broadcast
          </button>
        ) : null}
      </div>
      {can(['draft', 'scheduled']) ? (
        <form
          className="filters"
          aria-label="Schedule"
          onSubmit={(event) => {
            event.preventDefault();
            action.mutate({ action: 'schedule', body: { at: new Date(at).toISOString() } });
          }}
        >
          <div className="field">
            <label htmlFor="broadcast-at">Start at</label>
            <input id="broadcast-at" type="datetime-local" value={at} onChange={(event) => setAt(event.target.value)} required />
          </div>
          <div className="field">
            <button type="submit" disabled={action.isPending}>
              Schedule
            </button>
          </div>
        </form>
      ) : null}
      <ErrorAlert error={action.error ?? report.error ?? download.error} />
      <h3>Report</h3>
      {report.data ? (
        <>
          <p>
            Delivered {percent(report.data.delivery_rate)}, read {percent(report.data.read_rate)}, replied {percent(report.data.reply_rate ?? null)}.
          </p>
          <Chart
            title="Recipients by status"
            kind="bar"
            integer
            points={REPORT_STATUSES.map((status) => ({ label: status.replace(/_/g, ' '), value: report.data.counts[status] ?? 0 }))}
            format={(value) => String(value)}
            columns={['Status', 'Recipients']}
          />
          {report.data.failures_by_reason.length > 0 ? (
            <table aria-label="Failures by reason">
              <thead>
                <tr>
                  <th scope="col">Reason</th>
                  <th scope="col">Recipients</th>
                </tr>
              </thead>
              <tbody>
                {report.data.failures_by_reason.map((failure) => (
                  <tr key={failure.reason}>
                    <td dir="auto">{failure.reason}</td>
                    <td>{failure.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
      <button type="button" onClick={() => download.mutate()} disabled={download.isPending}>
        Download recipients (CSV)
      </button>
    </section>
  );
}
