import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Conversation, reply, schedule } from '../api/messaging';
import { ErrorAlert } from '../ui/page';
import { fromLocalInput, localInput, windowNote } from './format';

// The reply box (issue 35 item 7: a text box "Reply", a button "Send"): the channel's window above
// it, an optional attachment address, "Send later" with a time. The API's refusal (a closed
// window's 422 and its reason) is shown in an alert, never swallowed.
export function ReplyBox({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [attachment, setAttachment] = useState('');
  const [later, setLater] = useState(false);
  const [sendAt, setSendAt] = useState(() => localInput(new Date(Date.now() + 3_600_000)));
  const note = windowNote(conversation);
  const reset = () => {
    setText('');
    setAttachment('');
    void queryClient.invalidateQueries({ queryKey: ['inbox'] });
  };
  const send = useMutation({
    mutationFn: () => reply(conversation.id, { message: text, ...(attachment ? { media_urls: [attachment] } : {}) }),
    onSuccess: reset,
  });
  const scheduled = useMutation({
    mutationFn: () => schedule(conversation.id, { text, send_at: fromLocalInput(sendAt) }),
    onSuccess: () => {
      reset();
      setLater(false);
    },
  });
  const busy = send.isPending || scheduled.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.reset();
    scheduled.reset();
    if (later) scheduled.mutate();
    else send.mutate();
  };
  return (
    <form className="inbox-reply" onSubmit={submit} aria-label="Reply to the customer">
      {note ? (
        <p className={`inbox-window ${note.tone}`} id="reply-window">
          {note.text}
        </p>
      ) : null}
      <label htmlFor="reply-text">Reply</label>
      <textarea
        id="reply-text"
        value={text}
        onChange={(event) => setText(event.target.value)}
        dir="auto"
        rows={3}
        required
        maxLength={4096}
        aria-describedby={note ? 'reply-window' : undefined}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) event.currentTarget.form?.requestSubmit();
        }}
      />
      <div className="inbox-reply-row">
        <label>
          Attachment address <input type="url" value={attachment} placeholder="https://…" onChange={(event) => setAttachment(event.target.value)} />
        </label>
        <label>
          <input type="checkbox" checked={later} onChange={(event) => setLater(event.target.checked)} /> Send later
        </label>
        {later ? (
          <label>
            Send at <input type="datetime-local" value={sendAt} required onChange={(event) => setSendAt(event.target.value)} />
          </label>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {later ? 'Schedule' : 'Send'}
        </button>
      </div>
      <ErrorAlert error={send.error ?? scheduled.error} />
    </form>
  );
}
