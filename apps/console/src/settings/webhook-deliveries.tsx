import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dateTime } from '../api/rest';
import { Link, navigate } from '../router';
import '../deals/crm.css';
import { ErrorAlert, Loading } from '../ui/page';
import {
  type AttemptOutcome,
  deleteWebhook,
  describeOutcome,
  getWebhook,
  LOG_PAGE,
  type LogFilter,
  listLogs,
  retryLog,
  sendTest,
  setWebhookActive,
  type WebhookLog,
  WEBHOOKS,
} from './webhooks.api';

const STATUSES = ['', 'success', 'failed', 'retrying'] as const;

// One webhook's page: its state, the test action and its delivery log (one row per attempt, newest
// first), filterable by status and day, with "Retry" on every delivery that has not succeeded.
export function WebhookDeliveries({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<LogFilter>({ status: '', from: '', to: '' });
  const [outcome, setOutcome] = useState<{ what: string; outcome: AttemptOutcome } | null>(null);
  const webhook = useQuery({ queryKey: [...WEBHOOKS, id], queryFn: () => getWebhook(id) });
  const logs = useQuery({ queryKey: ['webhook_logs', id, filter], queryFn: () => listLogs(id, filter), refetchInterval: 10_000 });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['webhook_logs', id] });
    void queryClient.invalidateQueries({ queryKey: WEBHOOKS });
  };
  const test = useMutation({
    mutationFn: () => sendTest(id),
    onMutate: () => setOutcome(null),
    onSuccess: (answer) => setOutcome({ what: 'Test', outcome: answer }),
    onSettled: refresh,
  });
  const retry = useMutation({
    mutationFn: (log: WebhookLog) => retryLog(log.id),
    onMutate: () => setOutcome(null),
    onSuccess: (answer, log) => setOutcome({ what: `Retry of ${log.event}`, outcome: answer }),
    onSettled: refresh,
  });
  const toggle = useMutation({ mutationFn: (active: boolean) => setWebhookActive(id, active), onSettled: refresh });
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteWebhook(id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS });
      navigate('/settings/webhooks');
    },
  });
  if (webhook.isPending) return <Loading what="the webhook" />;
  if (webhook.error) return <ErrorAlert error={webhook.error} />;
  if (!webhook.data) {
    return (
      <p role="alert">
        This webhook does not exist. <Link to="/settings/webhooks">Back to webhooks</Link>
      </p>
    );
  }
  const current = webhook.data;
  // A delivery whose later attempt succeeded needs no retry.
  const delivered = new Set((logs.data ?? []).filter((log) => log.status === 'success').map((log) => log.delivery_id));
  return (
    <section aria-labelledby="webhook-heading">
      <p>
        <Link to="/settings/webhooks">Back to webhooks</Link>
      </p>
      <h2 id="webhook-heading" dir="auto">
        {current.name}
      </h2>
      <dl className="record-fields">
        <div>
          <dt>URL</dt>
          <dd>{current.url}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>{current.is_active ? 'Active' : `Off${current.disabled_reason ? `: ${current.disabled_reason}` : ''}`}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>{current.events.join(', ')}</dd>
        </div>
      </dl>
      <div className="actions">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          Send test
        </button>
        <button type="button" onClick={() => toggle.mutate(!current.is_active)} disabled={toggle.isPending}>
          {current.is_active ? 'Turn off' : 'Turn on'}
        </button>
        {deleting ? (
          <>
            <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
              Yes, delete
            </button>
            <button type="button" onClick={() => setDeleting(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setDeleting(true)}>
            Delete webhook
          </button>
        )}
      </div>
      <ErrorAlert error={test.error ?? retry.error ?? toggle.error ?? remove.error} />
      {outcome ? (
        <p role="status" dir="auto">
          {outcome.what}: {describeOutcome(outcome.outcome)}
        </p>
      ) : null}
      <h3 id="deliveries-heading">Deliveries</h3>
      <div className="filters" role="search" aria-label="Deliveries">
        <div className="field">
          <label htmlFor="log-status">Status</label>
          <select id="log-status" value={filter.status} onChange={(event) => setFilter({ ...filter, status: event.target.value as LogFilter['status'] })}>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status || 'Any status'}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="log-from">From</label>
          <input id="log-from" type="date" value={filter.from} onChange={(event) => setFilter({ ...filter, from: event.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="log-to">To</label>
          <input id="log-to" type="date" value={filter.to} onChange={(event) => setFilter({ ...filter, to: event.target.value })} />
        </div>
      </div>
      {logs.isPending ? <Loading what="deliveries" /> : null}
      <ErrorAlert error={logs.error} />
      {logs.data ? (
        <>
          <p role="status" className="small muted">
            {logs.data.length === 0
              ? 'No deliveries match.'
              : `The latest ${logs.data.length} attempts${logs.data.length === LOG_PAGE ? ' (narrow the dates to see older ones)' : ''}.`}
          </p>
          <table aria-labelledby="deliveries-heading">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">Response</th>
                <th scope="col">Took</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {logs.data.map((log) => (
                <tr key={log.id}>
                  <td>{dateTime(log.created_at)}</td>
                  <td>{log.event}</td>
                  <td>{log.attempt ?? ''}</td>
                  <td>{log.status}</td>
                  <td className="wrap" dir="auto">
                    {log.error_message ?? (log.response_code === null ? '' : `HTTP ${log.response_code}`)}
                  </td>
                  <td>{log.duration_ms === null ? '' : `${log.duration_ms} ms`}</td>
                  <td>
                    {log.status !== 'success' && !delivered.has(log.delivery_id) ? (
                      <button type="button" onClick={() => retry.mutate(log)} disabled={retry.isPending}>
                        Retry
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
