import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { callApi } from '../api/functions';
import { ErrorAlert, Loading } from '../ui/page';

// GET/PUT /functions/v1/reengagement/settings (docs/reengagement.md): the customer's key is never
// answered, only whether one is set and its last four characters.
interface ReengagementSettings {
  enabled: boolean;
  provider: 'default' | 'custom';
  has_custom_key: boolean;
  custom_key_last4: string | null;
  custom_base_url: string | null;
  key_scope: 'all' | 'reengagement';
  fallback_to_default: boolean;
  approval_mode: boolean;
  trigger_hours: number;
  channels: string[];
  guidelines: string;
  default_ai_configured: boolean;
  custom_key_check?: { ok: boolean; error?: string };
}

const PATH = '/functions/v1/reengagement/settings';
const KEY = ['reengagement-settings'] as const;
const NUDGED = [
  ['messenger', 'Messenger'],
  ['instagram', 'Instagram'],
  ['chat_app', 'Chat app'],
] as const;

// Settings → Re-engagement (§1, §8): AI nudges before a conversation's 24-hour window closes.
export function ReengagementSection() {
  const settings = useQuery({ queryKey: KEY, queryFn: () => callApi<ReengagementSettings>(PATH) });
  return (
    <section aria-labelledby="reengagement-heading">
      <h2 id="reengagement-heading">Re-engagement</h2>
      <p className="muted">
        Before a customer&apos;s 24-hour reply window closes, the AI writes a short follow-up from the conversation; with approval on, an agent sends or
        discards it.
      </p>
      {settings.isPending ? <Loading what="the re-engagement settings" /> : null}
      <ErrorAlert error={settings.error} />
      {settings.data ? <ReengagementForm settings={settings.data} /> : null}
    </section>
  );
}

function ReengagementForm({ settings }: { settings: ReengagementSettings }) {
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState(settings.provider);
  const [check, setCheck] = useState<ReengagementSettings['custom_key_check'] | null>(null);
  const [saved, setSaved] = useState(false);
  const keyInput = useRef<HTMLInputElement>(null);
  const save = useMutation({
    mutationFn: (change: Record<string, unknown>) => callApi<ReengagementSettings>(PATH, { method: 'PUT', body: change }),
    onMutate: () => {
      setSaved(false);
      setCheck(null);
    },
    onSuccess: (answer) => {
      // The key has left the page with the request; once stored it is not kept in the form.
      if (keyInput.current) keyInput.current.value = '';
      setSaved(true);
      setCheck(answer.custom_key_check ?? null);
      queryClient.setQueryData(KEY, answer);
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const key = String(data.get('custom_key') ?? '');
    const baseUrl = String(data.get('custom_base_url') ?? '').trim();
    save.mutate({
      enabled: data.get('enabled') === 'on',
      provider,
      ...(key ? { custom_key: key } : {}),
      ...(provider === 'custom'
        ? { custom_base_url: baseUrl || null, key_scope: String(data.get('key_scope')), fallback_to_default: data.get('fallback') === 'on' }
        : {}),
      approval_mode: data.get('approval_mode') === 'on',
      trigger_hours: Number(data.get('trigger_hours')),
      channels: data.getAll('channels').map(String),
      guidelines: String(data.get('guidelines') ?? ''),
    });
  }
  return (
    <form onSubmit={submit} aria-labelledby="reengagement-heading" key={settings.custom_key_last4 ?? 'none'}>
      <div className="field checkbox">
        <label>
          <input type="checkbox" name="enabled" defaultChecked={settings.enabled} /> Nudge customers before their window closes
        </label>
      </div>
      <fieldset className="checklist">
        <legend>AI provider</legend>
        <label>
          <input type="radio" name="provider" value="default" checked={provider === 'default'} onChange={() => setProvider('default')} /> The platform&apos;s AI
          {settings.default_ai_configured ? '' : ' (not configured on this server)'}
        </label>
        <label>
          <input type="radio" name="provider" value="custom" checked={provider === 'custom'} onChange={() => setProvider('custom')} /> Our own key
        </label>
      </fieldset>
      {provider === 'custom' ? (
        <div className="narrow">
          <div className="field">
            <label htmlFor="reengagement-key">API key</label>
            <input
              ref={keyInput}
              id="reengagement-key"
              name="custom_key"
              type="password"
              autoComplete="off"
              placeholder={settings.has_custom_key ? `A key ending in ${settings.custom_key_last4 ?? '…'} is set; type a new one to replace it` : 'sk-…'}
              aria-describedby="reengagement-key-state"
            />
            <span id="reengagement-key-state" className="small muted">
              {settings.has_custom_key ? `Set, ending in ${settings.custom_key_last4 ?? '(too short to show)'}.` : 'No key set.'} The key is never shown again.
            </span>
          </div>
          {settings.has_custom_key ? (
            <button type="button" onClick={() => save.mutate({ custom_key: null })} disabled={save.isPending}>
              Remove the key
            </button>
          ) : null}
          <div className="field">
            <label htmlFor="reengagement-base-url">API base URL (OpenAI-compatible, optional)</label>
            <input id="reengagement-base-url" name="custom_base_url" type="url" defaultValue={settings.custom_base_url ?? ''} placeholder="https://" />
          </div>
          <div className="field">
            <label htmlFor="reengagement-scope">The key is used for</label>
            <select id="reengagement-scope" name="key_scope" defaultValue={settings.key_scope}>
              <option value="reengagement">Re-engagement only</option>
              <option value="all">Re-engagement and call analysis</option>
            </select>
          </div>
          <div className="field checkbox">
            <label>
              <input type="checkbox" name="fallback" defaultChecked={settings.fallback_to_default} /> When our key fails, try the platform&apos;s AI once
            </label>
          </div>
        </div>
      ) : null}
      <div className="field checkbox">
        <label>
          <input type="checkbox" name="approval_mode" defaultChecked={settings.approval_mode} /> An agent approves each nudge before it is sent
        </label>
      </div>
      <div className="field narrow">
        <label htmlFor="reengagement-hours">Nudge after (hours of silence, 12 to 23)</label>
        <input id="reengagement-hours" name="trigger_hours" type="number" min={12} max={23} required defaultValue={settings.trigger_hours} />
      </div>
      <fieldset className="checklist">
        <legend>Channels nudged</legend>
        {NUDGED.map(([kind, label]) => (
          <label key={kind}>
            <input type="checkbox" name="channels" value={kind} defaultChecked={settings.channels.includes(kind)} /> {label}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="reengagement-guidelines">Guidelines for the AI</label>
        <textarea id="reengagement-guidelines" name="guidelines" rows={4} maxLength={4000} defaultValue={settings.guidelines} dir="auto" />
      </div>
      <ErrorAlert error={save.error} />
      {check ? <p role="status">{check.ok ? 'The key works.' : `The key was saved, but the check failed: ${check.error ?? 'no reason given'}.`}</p> : null}
      {saved && !check ? <p role="status">Saved.</p> : null}
      <button type="submit" className="primary" disabled={save.isPending}>
        Save re-engagement settings
      </button>
    </form>
  );
}
