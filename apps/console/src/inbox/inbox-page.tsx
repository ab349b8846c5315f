import { useQuery } from '@tanstack/react-query';
import { dateTime, fullName, rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface ConversationRow {
  id: string;
  status: string;
  channel_kind: string;
  unread_count: number;
  last_message_at: string | null;
  contacts: { first_name: string; last_name: string | null } | null;
}

// The open conversations the member may see, newest first (the full inbox is issue 35, item 3).
export function InboxPage() {
  const conversations = useQuery({
    queryKey: ['conversations', 'open'],
    queryFn: () =>
      rows<ConversationRow>(
        supabase
          .from('conversations')
          .select('id,status,channel_kind,unread_count,last_message_at,contacts(first_name,last_name)')
          .eq('status', 'open')
          .order('last_message_at', { ascending: false, nullsFirst: false })
          .limit(50),
      ),
  });
  return (
    <>
      <PageHeading>Inbox</PageHeading>
      {conversations.isPending ? <Loading what="conversations" /> : null}
      <ErrorAlert error={conversations.error} />
      {conversations.data?.length === 0 ? <p>No open conversations. New messages from your channels appear here.</p> : null}
      {conversations.data?.length ? (
        <ul aria-label="Conversations" className="rows">
          {conversations.data.map((conversation) => (
            <li key={conversation.id}>
              <span className="row-title" dir="auto">
                {fullName(conversation.contacts)}
              </span>
              <span className="badge">{conversation.channel_kind}</span>
              {conversation.unread_count > 0 ? <span className="badge unread">{conversation.unread_count} unread</span> : null}
              <span className="muted small">{dateTime(conversation.last_message_at)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
