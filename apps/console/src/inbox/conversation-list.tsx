import { useQueries, useQueryClient } from '@tanstack/react-query';
import { type ConversationFilters, type ConversationRow, listConversations, PAGE_SIZE } from '../api/messaging';
import { fullName } from '../api/rest';
import { useSession } from '../auth/session';
import { ErrorAlert, Loading } from '../ui/page';
import { channelLabel, shortTime, STATUS_LABELS } from './format';
import { usePollInterval } from './live';
import { useRowWindow } from './row-window';

type Page = { rows: ConversationRow[]; total: number };

// Each row's height in pixels (styles.css keeps a row's content inside it).
export const ROW_HEIGHT = 84;

// The contract of issue 35 item 7: a list named "Conversations" whose items contain the contact's
// name; each item is a button that opens the conversation. Virtualised (row-window.ts): only the
// rows in view are in the page, each with aria-setsize and aria-posinset, so 10,000 conversations
// cost what 20 do. The rows come 50 a page from the API; a page is asked for when scrolling rests
// on it, and only the pages in view are refreshed (live.ts, polling) while the others wait in the
// cache until they are seen again.
export function ConversationList({ filters, selected, onOpen }: { filters: ConversationFilters; selected: string | null; onOpen: (id: string) => void }) {
  const me = useSession().session?.user.id;
  const poll = usePollInterval();
  const queryClient = useQueryClient();
  const listKey = ['inbox', 'conversations', filters, me] as const;
  // The total of the newest page known for these filters (any page answers it).
  const cachedTotal = queryClient
    .getQueriesData<Page>({ queryKey: listKey })
    .map(([key, data]) => ({ data, at: queryClient.getQueryState(key)?.dataUpdatedAt ?? 0 }))
    .filter((entry) => entry.data)
    .sort((a, b) => b.at - a.at)[0]?.data?.total;
  const rowWindow = useRowWindow({ count: cachedTotal ?? 0, rowHeight: ROW_HEIGHT, resetKey: JSON.stringify([filters, me]) });
  const pageOf = (index: number) => Math.floor(index / PAGE_SIZE);
  const wanted = new Set(rowWindow.indexes.map(pageOf));
  const fetched = new Set<number>();
  for (let index = rowWindow.settled.first; index <= rowWindow.settled.last; index++) fetched.add(pageOf(index));
  if (fetched.size === 0) fetched.add(0); // nothing known yet, or nothing matched: the first page tells
  const pages = [...new Set([...wanted, ...fetched])].sort((a, b) => a - b);
  const results = useQueries({
    queries: pages.map((page) => ({
      queryKey: [...listKey, page],
      queryFn: () => listConversations(filters, me, page),
      enabled: fetched.has(page),
      refetchInterval: poll,
    })),
  });
  // Read here, so a page's answer renders (useQueries re-renders only for the fields read).
  const byPage = new Map(pages.map((page, at) => [page, results[at].data]));
  const total = cachedTotal ?? 0;
  const error = results.find((result) => result.error)?.error;
  return (
    <>
      {cachedTotal === undefined && !error ? <Loading what="conversations" /> : null}
      <ErrorAlert error={error} />
      {cachedTotal === 0 ? <p className="muted">No conversations match. New messages from your channels appear here.</p> : null}
      <div ref={rowWindow.scroller} className={total === 0 ? 'inbox-conversations empty' : 'inbox-conversations'}>
        <ul aria-label="Conversations" style={{ height: total * ROW_HEIGHT }} {...rowWindow.listProps}>
          {rowWindow.indexes.map((index) => {
            const row = byPage.get(pageOf(index))?.rows[index % PAGE_SIZE];
            return (
              <li
                key={index}
                data-index={index}
                aria-setsize={total}
                aria-posinset={index + 1}
                tabIndex={-1}
                style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT }}
              >
                {row ? (
                  <ConversationItem row={row} current={row.id === selected} onOpen={() => onOpen(row.id)} />
                ) : (
                  <span className="inbox-item-loading muted small">Loading…</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
      {total > 0 ? (
        <p className="small muted inbox-total">
          {total.toLocaleString('en')} conversation{total === 1 ? '' : 's'}
        </p>
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
