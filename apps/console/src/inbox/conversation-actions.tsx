import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { assign, type Conversation, CONVERSATION_STATUSES, listMembers, setStatus } from '../api/messaging';
import { fullName } from '../api/rest';
import { useSession } from '../auth/session';
import { ErrorAlert } from '../ui/page';
import { useContactQuery } from './contact-panel';
import { channelLabel, fromLocalInput, localInput, longTime, STATUS_LABELS } from './format';

// The thread's header: who and where, then assign (to me, to a member, nobody), status and snooze.
export function ConversationActions({ conversation }: { conversation: Conversation & { messages: unknown[] } }) {
  const queryClient = useQueryClient();
  const me = useSession().session?.user.id;
  const members = useQuery({ queryKey: ['members'], queryFn: listMembers, staleTime: 60_000 });
  const done = () => queryClient.invalidateQueries({ queryKey: ['inbox'] });
  const assignTo = useMutation({ mutationFn: (to: string | null) => assign(conversation.id, to), onSuccess: done });
  const status = useMutation({
    mutationFn: (input: { status: string; until?: string }) => setStatus(conversation.id, input.status, input.until),
    onSuccess: done,
  });
  const [until, setUntil] = useState(() => localInput(new Date(Date.now() + 3_600_000)));
  const snooze = (event: FormEvent) => {
    event.preventDefault();
    status.mutate({ status: 'SNOOZED', until: fromLocalInput(until) });
  };
  const assignee = members.data?.find((member) => member.id === conversation.assignee_id);
  return (
    <div className="inbox-actions">
      <h2 id="thread-title">
        <ThreadTitle contactId={conversation.contact_id} /> <span className="badge">{channelLabel(conversation.channel_kind)}</span>{' '}
        <span className="badge">{STATUS_LABELS[conversation.status] ?? conversation.status}</span>
      </h2>
      <p className="small muted">
        {conversation.assignee_id ? `Assigned to ${assignee ? fullName(assignee) : 'a member'}` : 'Unassigned'}
        {conversation.status === 'SNOOZED' && conversation.snoozed_until ? ` · snoozed until ${longTime(conversation.snoozed_until)}` : ''}
        {conversation.email_subject ? ` · ${conversation.email_subject}` : ''}
      </p>
      <div className="inbox-action-row">
        {conversation.assignee_id !== me ? (
          <button type="button" onClick={() => assignTo.mutate(me ?? null)} disabled={!me || assignTo.isPending}>
            Assign to me
          </button>
        ) : (
          <button type="button" onClick={() => assignTo.mutate(null)} disabled={assignTo.isPending}>
            Unassign
          </button>
        )}
        <label htmlFor="thread-assignee">Assignee</label>
        <select
          id="thread-assignee"
          value={conversation.assignee_id ?? ''}
          onChange={(event) => assignTo.mutate(event.target.value || null)}
          disabled={assignTo.isPending}
        >
          <option value="">Nobody</option>
          {members.data?.map((member) => (
            <option key={member.id} value={member.id}>
              {member.first_name || member.last_name ? fullName(member) : member.email}
              {member.id === me ? ' (me)' : ''}
            </option>
          ))}
        </select>
        <label htmlFor="thread-status">Conversation status</label>
        <select
          id="thread-status"
          value={conversation.status === 'SNOOZED' ? 'SNOOZED' : conversation.status}
          onChange={(event) => event.target.value !== 'SNOOZED' && status.mutate({ status: event.target.value })}
          disabled={status.isPending}
        >
          {CONVERSATION_STATUSES.map((value) => (
            <option key={value} value={value} disabled={value === 'SNOOZED'}>
              {STATUS_LABELS[value]}
            </option>
          ))}
        </select>
        <form onSubmit={snooze} className="inbox-inline-form">
          <label>
            Snooze until <input type="datetime-local" value={until} required onChange={(event) => setUntil(event.target.value)} />
          </label>
          <button type="submit" disabled={status.isPending}>
            Snooze
          </button>
        </form>
      </div>
      <ErrorAlert error={assignTo.error ?? status.error} />
    </div>
  );
}

// The contact's name, from the same query as the contact panel.
function ThreadTitle({ contactId }: { contactId: string }) {
  const contact = useContactQuery(contactId);
  return <span dir="auto">{contact.data ? fullName(contact.data) : 'Conversation'}</span>;
}
