import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { cancelScheduled, editScheduled, listScheduled, type ScheduledMessage } from '../api/messaging';
import { ErrorAlert } from '../ui/page';
import { fromLocalInput, localInput, longTime } from './format';
import { usePollInterval } from './live';

const STATUS: Record<string, string> = {
  scheduled: 'Scheduled',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  cancelled: 'Cancelled',
  cancelled_by_reply: 'Cancelled by the customer’s reply',
};

// "Send later": the conversation's scheduled messages, earliest first; those still scheduled can
// be edited (text, time) or cancelled.
export function ScheduledMessages({ conversationId }: { conversationId: string }) {
  const poll = usePollInterval();
  const list = useQuery({ queryKey: ['inbox', 'scheduled', conversationId], queryFn: () => listScheduled(conversationId), refetchInterval: poll });
  const waiting = (list.data ?? []).filter((item) => item.status === 'scheduled' || item.status === 'sending' || item.status === 'failed');
  if (!waiting.length && !list.error) return null;
  return (
    <section className="inbox-scheduled" aria-labelledby="scheduled-title">
      <h3 id="scheduled-title">Scheduled messages</h3>
      <ErrorAlert error={list.error} />
      <ul aria-labelledby="scheduled-title">
        {waiting.map((item) => (
          <ScheduledItem key={item.id} item={item} />
        ))}
      </ul>
    </section>
  );
}

function ScheduledItem({ item }: { item: ScheduledMessage }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.text);
  const [sendAt, setSendAt] = useState(() => localInput(new Date(item.send_at)));
  const done = () => queryClient.invalidateQueries({ queryKey: ['inbox', 'scheduled', item.conversation_id] });
  const save = useMutation({
    mutationFn: () => editScheduled(item.id, { text, send_at: fromLocalInput(sendAt) }),
    onSuccess: () => {
      setEditing(false);
      void done();
    },
  });
  const cancel = useMutation({ mutationFn: () => cancelScheduled(item.id), onSuccess: done });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <li>
      {editing ? (
        <form onSubmit={submit} className="inbox-scheduled-edit">
          <label>
            Scheduled text <textarea value={text} onChange={(event) => setText(event.target.value)} dir="auto" rows={2} required />
          </label>
          <label>
            Send at <input type="datetime-local" value={sendAt} required onChange={(event) => setSendAt(event.target.value)} />
          </label>
          <button type="submit" disabled={save.isPending}>
            Save
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Keep as it was
          </button>
        </form>
      ) : (
        <>
          <p dir="auto" className="inbox-scheduled-text">
            {item.text}
          </p>
          <p className="small muted">
            {STATUS[item.status] ?? item.status} · {longTime(item.send_at)}
            {item.error ? ` · ${item.error}` : ''}
          </p>
          {item.status === 'scheduled' ? (
            <div className="inbox-action-row">
              <button type="button" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
                Cancel scheduled message
              </button>
            </div>
          ) : null}
        </>
      )}
      <ErrorAlert error={save.error ?? cancel.error} />
    </li>
  );
}
