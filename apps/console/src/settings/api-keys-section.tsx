import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { callApi } from '../api/functions';
import { dateTime } from '../api/rest';
import { ErrorAlert, Loading } from '../ui/page';
import { ShownOnceDialog } from '../ui/shown-once-dialog';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

const KEYS = ['api-keys'] as const;

// Settings → API keys (§5, docs/identity.md): listed by prefix, created with the full key shown
// once, revoked. OWNER and ADMIN only; the API answers 403 to the others.
export function ApiKeysSection() {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const keys = useQuery({ queryKey: KEYS, queryFn: async () => (await callApi<{ api_keys: ApiKey[] }>('/functions/v1/api-keys')).api_keys });
  const create = useMutation({
    mutationFn: (name: string) => callApi<ApiKey & { api_key: string }>('/functions/v1/api-keys', { method: 'POST', body: { name } }),
    onSuccess: (answer) => {
      setCreating(false);
      setCreated(answer.api_key);
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => callApi<void>(`/functions/v1/api-keys/${key.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(String(new FormData(event.currentTarget).get('name') ?? ''));
  }
  return (
    <section aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading">API keys</h2>
      <p className="muted">Integrations send a key in the X-API-Key header. A key is shown once, when it is created; the list shows its first characters.</p>
      {creating ? (
        <form onSubmit={submit} className="narrow" aria-label="New API key">
          <div className="field">
            <label htmlFor="api-key-name">Name</label>
            <input id="api-key-name" name="name" required maxLength={200} dir="auto" autoFocus />
          </div>
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
          Create API key
        </button>
      )}
      {created ? (
        <ShownOnceDialog
          title="API key created"
          label="API key"
          value={created}
          note="Copy the key now: it is not shown again. Revoke it and create another if it is lost."
          onDone={() => setCreated(null)}
        />
      ) : null}
      {keys.isPending ? <Loading what="API keys" /> : null}
      <ErrorAlert error={keys.error ?? revoke.error} />
      {keys.data ? (
        keys.data.length === 0 ? (
          <p className="muted">No API keys yet.</p>
        ) : (
          <table aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td dir="auto">{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{dateTime(key.created_at)}</td>
                  <td>{key.last_used_at ? dateTime(key.last_used_at) : 'Never'}</td>
                  <td>
                    {revoking?.id === key.id ? (
                      <span className="actions">
                        <button type="button" className="danger" onClick={() => revoke.mutate(key)} disabled={revoke.isPending}>
                          Yes, revoke
                        </button>
                        <button type="button" onClick={() => setRevoking(null)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button type="button" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                        Revoke
                      </button>
                    )}
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
