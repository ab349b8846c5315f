import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { contactTimeline, getContact } from '../api/messaging';
import { fullName } from '../api/rest';
import { ErrorAlert, Loading } from '../ui/page';
import { shortTime } from './format';

export const useContactQuery = (id: string) => useQuery({ queryKey: ['inbox', 'contact', id], queryFn: () => getContact(id), staleTime: 30_000 });

// The conversation's contact: name, phones, emails, tags, company, custom fields, latest activity.
export function ContactPanel({ contactId }: { contactId: string }) {
  const contact = useContactQuery(contactId);
  return (
    <aside className="inbox-contact" aria-labelledby="contact-title">
      <h2 id="contact-title">Contact</h2>
      {contact.isPending ? <Loading what="the contact" /> : null}
      <ErrorAlert error={contact.error} />
      {contact.data ? (
        <dl>
          <dt>Name</dt>
          <dd dir="auto">{fullName(contact.data)}</dd>
          {contact.data.phones.length ? (
            <>
              <dt>Phone</dt>
              {contact.data.phones.map((phone) => (
                <dd key={phone} dir="ltr">
                  {phone}
                </dd>
              ))}
            </>
          ) : null}
          {contact.data.emails.length ? (
            <>
              <dt>Email</dt>
              {contact.data.emails.map((email) => (
                <dd key={email}>{email}</dd>
              ))}
            </>
          ) : null}
          <dt>Company</dt>
          <dd dir="auto">{contact.data.companies?.name ?? 'None'}</dd>
          <dt>Tags</dt>
          <dd>
            {contact.data.tags.length
              ? contact.data.tags.map((tag) => (
                  <span key={tag} className="badge" dir="auto">
                    {tag}
                  </span>
                ))
              : 'None'}
          </dd>
          {contact.data.opt_in_status ? (
            <>
              <dt>Opt-in</dt>
              <dd>{contact.data.opt_in_status}</dd>
            </>
          ) : null}
          {Object.entries(contact.data.custom_fields ?? {})
            .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
            .map(([name, value]) => (
              <Fragment key={name}>
                <dt dir="auto">{name}</dt>
                <dd dir="auto">{String(value)}</dd>
              </Fragment>
            ))}
          {contact.data.description ? (
            <>
              <dt>Notes</dt>
              <dd dir="auto">{contact.data.description}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <Timeline contactId={contactId} />
    </aside>
  );
}

function Timeline({ contactId }: { contactId: string }) {
  const timeline = useQuery({ queryKey: ['inbox', 'timeline', contactId], queryFn: () => contactTimeline(contactId), staleTime: 30_000 });
  return (
    <>
      <h3 id="contact-timeline">Latest activity</h3>
      <ErrorAlert error={timeline.error} />
      {timeline.data?.length === 0 ? <p className="small muted">No activity yet.</p> : null}
      <ol aria-labelledby="contact-timeline" className="inbox-timeline">
        {timeline.data?.map((entry) => (
          <li key={entry.id} className="small">
            <span dir="auto">{entry.summary}</span>{' '}
            <time className="muted" dateTime={entry.occurred_at}>
              {shortTime(entry.occurred_at)}
            </time>
          </li>
        ))}
      </ol>
    </>
  );
}
