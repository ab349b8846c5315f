import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ConversationFilters, type ConversationRow, listConversations, PAGE_SIZE } from '../api/messaging';
import { fullName } from '../api/rest';
import { useSession } from '../auth/session';
import { ErrorAlert, Loading } from '../ui/page';
import { channelLabel, shortTime, STATUS_LABELS } from './format';
import { usePollInterval } from './live';

// The contract of issue 35 item 7: a list named "Conversations" whose items contain the contact's
// name; each item is a button that opens the conversation. 50 a page.
export function ConversationList({
  filters,
  selected,
  onOpen,
  onPage,
}: {
  filters: ConversationFilters;
  selected: string | null;
  onOpen: (id: string) => void;
  onPage: (page: number) => void;
}) {
  const me = useSession().session?.user.id;
  const poll = usePollInterval();
  const list = useQuery({
    queryKey: ['inbox', 'conversations', filters, me],
    queryFn: () => listConversations(filters, me),
    refetchInterval: poll,
    placeholderData: keepPreviousData,
  });
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / PAGE_SIZE));
  return (
    <>
      {list.isPending ? <Loading what="conversations" /> : null}
      <ErrorAlert error={list.error} />
      {list.data?.rows.length === 0 ? <p className="muted">No conversations match. New messages from your channels appear here.</p> : null}
      <ul aria-label="Conversations" className="inbox-conversations">
        {list.data?.rows.map((row) => (
          <li key={row.id}>
            <ConversationItem row={row} current={row.id === selected} onOpen={() => onOpen(row.id)} />
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav aria-label="Conversation pages" className="inbox-pages">
          <button type="button" disabled={filters.page <= 1} onClick={() => onPage(filters.page - 1)}>
            Previous
          </button>
          <span className="small muted">
            Page {filters.page} of {pages} ({list.data?.total} conversations)
          </span>
          <button type="button" disabled={filters.page >= pages} onClick={() => onPage(filters.page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </>
  );
}

function lastMessageText(row: ConversationRow): string {
  const last = row.messages[0];
  if (!last) return 'No messages yet';
  const text = last.content || (last.media?.length ? `Attachment (${last.media[0].kind ?? 'file'})` : '');
  return last.direction === 'OUTBOUND' ? `You: ${text}` : text;
}

function ConversationItem({ row, current, onOpen }: { row: ConversationRow; current: boolean; onOpen: () => void }) {
  return (
    <button type="button" className="inbox-item" aria-current={current ? 'true' : undefined} onClick={onOpen}>
      <span className="inbox-item-top">
        <span className="row-title" dir="auto">
          {fullName(row.contacts)}
        </span>
        <time className="small muted" dateTime={row.last_message_at ?? undefined}>
          {shortTime(row.last_message_at)}
        </time>
      </span>
      <span className="inbox-item-last small" dir="auto">
        {lastMessageText(row)}
      </span>
      <span className="inbox-item-tags">
        <span className="badge">{channelLabel(row.channel_kind)}</span>
        {row.status !== 'OPEN' ? <span className="badge">{STATUS_LABELS[row.status] ?? row.status}</span> : null}
        {row.unread_count > 0 ? <span className="badge unread">{row.unread_count} unread</span> : null}
      </span>
    </button>
  );
}
