import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { approveDraft, type Draft, editDraft, listDrafts, skipDraft } from '../api/messaging';
import { ErrorAlert } from '../ui/page';
import { longTime } from './format';
import { usePollInterval } from './live';

// AI re-engagement drafts of this conversation waiting for an agent: approve (send as written),
// edit (send the agent's text) or skip (no other nudge in that window).
export function Drafts({ conversationId }: { conversationId: string }) {
  const poll = usePollInterval();
  const drafts = useQuery({ queryKey: ['inbox', 'drafts', conversationId], queryFn: () => listDrafts(conversationId), refetchInterval: poll });
  if (!drafts.data?.length && !drafts.error) return null;
  return (
    <section className="inbox-drafts" aria-labelledby="drafts-title">
      <h3 id="drafts-title">Re-engagement drafts</h3>
      <ErrorAlert error={drafts.error} />
      <ul aria-labelledby="drafts-title">
        {drafts.data?.map((draft) => (
          <DraftItem key={draft.id} draft={draft} />
        ))}
      </ul>
    </section>
  );
}

function DraftItem({ draft }: { draft: Draft }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(draft.text ?? '');
  const done = () => queryClient.invalidateQueries({ queryKey: ['inbox'] });
  const act = useMutation({
    mutationFn: (action: 'approve' | 'edit' | 'skip') =>
      action === 'approve' ? approveDraft(draft.id) : action === 'edit' ? editDraft(draft.id, text) : skipDraft(draft.id),
    onSuccess: done,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    act.mutate('edit');
  };
  return (
    <li>
      {editing ? (
        <form onSubmit={submit}>
          <label>
            Draft text <textarea value={text} onChange={(event) => setText(event.target.value)} dir="auto" rows={3} maxLength={1000} required />
          </label>
          <div className="inbox-action-row">
            <button type="submit" disabled={act.isPending}>
              Send edited text
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <>
          <p dir="auto">{draft.text}</p>
          <p className="small muted">Window closes {longTime(draft.window_closes_at)}</p>
          <div className="inbox-action-row">
            <button type="button" onClick={() => act.mutate('approve')} disabled={act.isPending}>
              Approve and send
            </button>
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" onClick={() => act.mutate('skip')} disabled={act.isPending}>
              Skip
            </button>
          </div>
        </>
      )}
      <ErrorAlert error={act.error} />
    </li>
  );
}
