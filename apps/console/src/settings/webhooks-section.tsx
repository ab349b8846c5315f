import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { ShownOnceDialog } from '../ui/shown-once-dialog';
import { WebhookDeliveries } from './webhook-deliveries';
import { type AttemptOutcome, createWebhook, describeOutcome, listWebhooks, sendTest, WEBHOOK_KINDS, WEBHOOKS } from './webhooks.api';

// Settings → Webhooks (§6, docs/webhooks.md): the organization's endpoints, created with an events
// checklist (a generated secret shown once), the test action, and each one's delivery log.
export function WebhooksSection() {
  const { path } = useLocation();
  const id = path.startsWith('/settings/webhooks/') ? path.slice('/settings/webhooks/'.length) : null;
  return id ? <WebhookDeliveries id={id} /> : <WebhookList />;
}

function WebhookList() {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [tested, setTested] = useState<{ name: string; outcome: AttemptOutcome } | null>(null);
  const webhooks = useQuery({ queryKey: WEBHOOKS, queryFn: listWebhooks });
  const create = useMutation({
    mutationFn: createWebhook,
    onSuccess: (created) => {
      setCreating(false);
      if (created.secret && !created.secret.includes('****')) setSecret(created.secret);
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS });
    },
  });
  const test = useMutation({
    mutationFn: async (webhook: { id: string; name: string }) => ({ name: webhook.name, outcome: await sendTest(webhook.id) }),
    onMutate: () => setTested(null),
    onSuccess: setTested,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ name: String(form.get('name') ?? ''), url: String(form.get('url') ?? ''), events: form.getAll('events').map(String) });
  }
  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="muted">
        Each event of the kinds chosen is POSTed to the address, signed with the webhook's secret (Standard Webhooks), and retried for about 31 hours.
      </p>
      {creating ? (
        <form onSubmit={submit} aria-label="New webhook" className="narrow">
          <div className="field">
            <label htmlFor="webhook-name">Name</label>
            <input id="webhook-name" name="name" required maxLength={200} dir="auto" autoFocus />
          </div>
          <div className="field">
            <label htmlFor="webhook-url">URL</label>
            <input id="webhook-url" name="url" type="url" required maxLength={2048} placeholder="https://" />
          </div>
          <fieldset className="checklist">
            <legend>Events</legend>
            {WEBHOOK_KINDS.map((kind) => (
              <label key={kind}>
                <input type="checkbox" name="events" value={kind} /> {kind}
              </label>
            ))}
          </fieldset>
          <ErrorAlert error={create.error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={create.isPending}>
              Create
            </button>
            <button type="button" onClick={() => setCreating(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create webhook
        </button>
      )}
      {secret ? (
        <ShownOnceDialog
          title="Webhook created"
          label="Signing secret"
          value={secret}
          note="Copy the signing secret now: it is not shown again. Receivers verify each delivery's signature with it."
          onDone={() => setSecret(null)}
        />
      ) : null}
      {webhooks.isPending ? <Loading what="webhooks" /> : null}
      <ErrorAlert error={webhooks.error ?? test.error} />
      {tested ? (
        <p role="status" dir="auto">
          Test of {tested.name}: {describeOutcome(tested.outcome)}
        </p>
      ) : null}
      {webhooks.data ? (
        webhooks.data.length === 0 ? (
          <p className="muted">No webhooks yet.</p>
        ) : (
          <table aria-label="Webhooks">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((webhook) => (
                <tr key={webhook.id}>
                  <td dir="auto">
                    <Link to={`/settings/webhooks/${webhook.id}`}>{webhook.name}</Link>
                  </td>
                  <td className="wrap">{webhook.url}</td>
                  <td>{webhook.events.length}</td>
                  <td>{webhook.is_active ? 'Active' : `Off${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`}</td>
                  <td>
                    <span className="actions">
                      <button type="button" onClick={() => test.mutate(webhook)} disabled={test.isPending} aria-label={`Send a test to ${webhook.name}`}>
                        Send test
                      </button>
                      <Link to={`/settings/webhooks/${webhook.id}`} aria-label={`Deliveries of ${webhook.name}`}>
                        Deliveries
                      </Link>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}
