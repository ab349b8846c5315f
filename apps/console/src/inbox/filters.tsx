import { useQuery } from '@tanstack/react-query';
import { CHANNEL_KINDS, CONVERSATION_STATUSES, type ConversationFilters, unreadCounts } from '../api/messaging';
import { channelLabel, STATUS_LABELS } from './format';
import { useLive, usePollInterval } from './live';

// Status, whose, channel kind, unread only, and a search on the contact's name; the unread counts
// (all, and mine) beside them.
export function Filters({ filters, onChange }: { filters: ConversationFilters; onChange: (change: Partial<ConversationFilters>) => void }) {
  const poll = usePollInterval();
  const live = useLive();
  const all = useQuery({ queryKey: ['inbox', 'unread', false], queryFn: () => unreadCounts(false), refetchInterval: poll });
  const mine = useQuery({ queryKey: ['inbox', 'unread', true], queryFn: () => unreadCounts(true), refetchInterval: poll });
  return (
    <form className="inbox-filters" role="search" aria-label="Filter conversations" onSubmit={(event) => event.preventDefault()}>
      <label className="inbox-search">
        <span className="visually-hidden">Search conversations</span>
        <input
          type="search"
          placeholder="Search by contact name"
          value={filters.search}
          dir="auto"
          onChange={(event) => onChange({ search: event.target.value })}
        />
      </label>
      <div className="inbox-filter-row">
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={filters.status} onChange={(event) => onChange({ status: event.target.value })}>
          {CONVERSATION_STATUSES.map((status) => (
            <option key={status} value={status}>
              {STATUS_LABELS[status]}
              {all.data?.by_status?.[status] ? ` (${all.data.by_status[status]} unread)` : ''}
            </option>
          ))}
          <option value="">Any status</option>
        </select>
        <label htmlFor="filter-channel">Channel</label>
        <select id="filter-channel" value={filters.channel} onChange={(event) => onChange({ channel: event.target.value })}>
          <option value="">All channels</option>
          {CHANNEL_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {channelLabel(kind)}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="inbox-who">
        <legend className="visually-hidden">Whose conversations</legend>
        {(
          [
            ['all', 'All'],
            ['mine', 'Mine'],
            ['unassigned', 'Unassigned'],
          ] as const
        ).map(([value, label]) => (
          <label key={value}>
            <input type="radio" name="who" value={value} checked={filters.who === value} onChange={() => onChange({ who: value })} /> {label}
          </label>
        ))}
        <label>
          <input type="checkbox" checked={filters.unread} onChange={(event) => onChange({ unread: event.target.checked })} /> Unread
        </label>
      </fieldset>
      <p className="muted small" aria-live="polite">
        {all.data ? `${all.data.total} unread in ${all.data.conversations} conversation${all.data.conversations === 1 ? '' : 's'}` : ''}
        {mine.data ? ` · ${mine.data.total} of mine` : ''}
      </p>
      <p className="muted small">{live ? 'Live' : 'Refreshing every 3 s'}</p>
    </form>
  );
}
