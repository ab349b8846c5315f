import type { Media, Message } from '../api/messaging';
import { longTime, shortTime, statusText } from './format';

// A message: its text in its own direction, attachments inline (images as pictures, anything
// else as a link), who wrote it, when, and where it stands.
export function MessageItem({ message }: { message: Message }) {
  const outbound = message.direction === 'OUTBOUND';
  const sender = typeof message.metadata?.sender_name === 'string' ? message.metadata.sender_name : undefined;
  const failed = message.status === 'FAILED';
  return (
    <li className={`inbox-message ${outbound ? 'outbound' : 'inbound'}${failed ? ' failed' : ''}`}>
      <span className="visually-hidden">{outbound ? `Sent by ${sender ?? originLabel(message.origin)}: ` : 'Customer: '}</span>
      {message.content ? (
        <p className="inbox-message-text" dir="auto">
          {message.content}
        </p>
      ) : null}
      {(message.media ?? []).map((media, index) => (
        <Attachment key={`${media.url}-${index}`} media={media} index={index} />
      ))}
      <p className="inbox-message-meta small">
        <time dateTime={message.created_at} title={longTime(message.created_at)}>
          {shortTime(message.created_at)}
        </time>
        {outbound ? ` · ${sender ?? originLabel(message.origin)}` : ''} · <span className="inbox-message-status">{statusText(message)}</span>
      </p>
    </li>
  );
}

function Attachment({ media, index }: { media: Media; index: number }) {
  const kind = media.kind ?? 'file';
  if (kind === 'image') {
    return (
      <a href={media.url} target="_blank" rel="noreferrer" className="inbox-attachment">
        <img src={media.url} alt={`Image attachment ${index + 1}`} loading="lazy" />
      </a>
    );
  }
  return (
    <p className="inbox-attachment">
      <a href={media.url} target="_blank" rel="noreferrer">
        {kind[0].toUpperCase() + kind.slice(1)} attachment {index + 1}
      </a>
    </p>
  );
}

const ORIGINS: Record<string, string> = {
  agent: 'an agent',
  api: 'the API',
  api_queued: 'the API (queued)',
  scheduled: 'a scheduled send',
  rule: 'a rule',
  bot: 'a bot',
  sequence: 'a sequence',
  broadcast: 'a broadcast',
  reengagement: 'AI re-engagement',
};
const originLabel = (origin: string) => ORIGINS[origin] ?? origin;
