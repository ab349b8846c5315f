import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { getConversation, markRead } from '../api/messaging';
import { usePollInterval } from './live';
import { ErrorAlert, Loading } from '../ui/page';
import { ConversationActions } from './conversation-actions';
import { ContactPanel } from './contact-panel';
import { Drafts } from './drafts';
import { MessageItem } from './message-item';
import { ReplyBox } from './reply-box';
import { ScheduledMessages } from './scheduled-messages';

// One conversation: its actions, the re-engagement drafts waiting, the messages (a log named
// "Messages", issue 35 item 7), the scheduled sends, the reply box; the contact beside it.
export function Thread({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const poll = usePollInterval();
  const conversation = useQuery({ queryKey: ['inbox', 'conversation', id], queryFn: () => getConversation(id), refetchInterval: poll });
  const read = useMutation({
    mutationFn: () => markRead(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['inbox'] }),
  });
  const unread = conversation.data?.unread_count ?? 0;
  const { mutate: markAsRead } = read;
  useEffect(() => {
    if (unread > 0) markAsRead();
  }, [unread, markAsRead]);
  const end = useRef<HTMLLIElement>(null);
  const count = conversation.data?.messages.length ?? 0;
  // Braces: scrollIntoView returns a promise in current Chromium, and an effect may return only a cleanup.
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [count]);

  if (conversation.isPending) return <Loading what="the conversation" />;
  if (conversation.error) return <ErrorAlert error={conversation.error} />;
  const data = conversation.data;
  return (
    <div className="inbox-open">
      <section className="inbox-thread" aria-labelledby="thread-title">
        <ConversationActions conversation={data} />
        <Drafts conversationId={id} />
        <div role="log" aria-label="Messages" className="inbox-log" tabIndex={0}>
          {data.messages.length === 0 ? <p className="muted">No messages yet.</p> : null}
          <ol>
            {data.messages.map((message) => (
              <MessageItem key={message.id} message={message} />
            ))}
            <li ref={end} aria-hidden="true" className="inbox-log-end" />
          </ol>
        </div>
        <ScheduledMessages conversationId={id} />
        <ReplyBox conversation={data} />
      </section>
      <ContactPanel contactId={data.contact_id} />
    </div>
  );
}
