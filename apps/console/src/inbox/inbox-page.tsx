import { useDeferredValue, useState } from 'react';
import type { ConversationFilters } from '../api/messaging';
import { Link, navigate, useLocation } from '../router';
import { PageHeading } from '../ui/page';
import { ConversationList } from './conversation-list';
import { Filters } from './filters';
import { useInboxLive } from './live';
import { Thread } from './thread';

// The unified inbox: the conversations on the left (every open one the member may see by
// default), the open thread with its reply box in the middle, the contact on the right. The open
// conversation is in the address (?c=<id>), so a link opens it. Changes arrive over the realtime
// socket (live.ts), with polling every 3 s whenever it is not joined.
const INITIAL: ConversationFilters = { status: 'OPEN', who: 'all', channel: '', unread: false, search: '' };

export function InboxPage() {
  useInboxLive();
  const { query } = useLocation();
  const selected = query.get('c');
  const [filters, setFilters] = useState(INITIAL);
  const search = useDeferredValue(filters.search);
  const open = (id: string) => navigate(`/inbox?c=${id}`);
  return (
    <div className={selected ? 'inbox has-open' : 'inbox'}>
      <div className="inbox-list">
        <PageHeading>Inbox</PageHeading>
        {/* In a narrow window the open conversation replaces the list (styles.css); this leads back. */}
        {selected ? (
          <Link to="/inbox" className="inbox-back">
            Back to conversations
          </Link>
        ) : null}
        <Filters filters={filters} onChange={(change) => setFilters({ ...filters, ...change })} />
        <ConversationList filters={{ ...filters, search }} selected={selected} onOpen={open} />
      </div>
      {selected ? (
        <Thread key={selected} id={selected} />
      ) : (
        <section className="inbox-empty" aria-label="No conversation open">
          <p className="muted">Choose a conversation to read and answer it.</p>
        </section>
      )}
    </div>
  );
}
