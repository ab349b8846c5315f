import { useState } from 'react';
import { dateTime, fullName } from '../api/rest';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { ContactForm } from './contact-form';
import { type TimelineEntry, useContact, useTimeline } from './contacts.api';

// One contact: its fields, edit in place, and its activity timeline (newest first).
export function ContactDetails({ id }: { id: string }) {
  const contact = useContact(id);
  const [editing, setEditing] = useState(false);
  const data = contact.data;
  return (
    <section aria-labelledby="contact-heading" className="record-details">
      <p>
        <Link to="/contacts">Back to contacts</Link>
      </p>
      {contact.isPending ? <Loading what="the contact" /> : null}
      <ErrorAlert error={contact.error} />
      {data ? (
        <>
          <div className="record-title">
            <h2 id="contact-heading" dir="auto">
              {fullName(data)}
            </h2>
            {editing ? null : (
              <button type="button" onClick={() => setEditing(true)}>
                Edit contact
              </button>
            )}
          </div>
          {editing ? (
            <ContactForm key={data.updated_at} contact={data} onDone={() => setEditing(false)} />
          ) : (
            <dl className="record-fields">
              <Item label="Phones" value={data.phones.join(', ')} dir="ltr" />
              <Item label="Emails" value={data.emails.join(', ')} />
              <Item label="Tags" value={data.tags.join(', ')} />
              <div>
                <dt>Company</dt>
                <dd dir="auto">{data.company ? <Link to={`/companies?company=${data.company.id}`}>{data.company.name}</Link> : '—'}</dd>
              </div>
              <Item label="Source" value={data.source} />
              <Item label="Opted in" value={data.opt_in_status ? 'Yes' : 'No'} />
              <Item label="Created" value={dateTime(data.created_at)} />
              <Item label="Updated" value={dateTime(data.updated_at)} />
              {data.description ? <Item label="Description" value={data.description} /> : null}
              {Object.entries(data.custom_fields ?? {}).map(([name, value]) => (
                <Item key={name} label={name} value={typeof value === 'string' ? value : JSON.stringify(value)} />
              ))}
            </dl>
          )}
          <Timeline kind="contacts" id={id} />
        </>
      ) : null}
    </section>
  );
}

function Item({ label, value, dir = 'auto' }: { label: string; value: string; dir?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd dir={dir}>{value || '—'}</dd>
    </div>
  );
}

export function Timeline({ kind, id }: { kind: 'contacts' | 'companies' | 'deals'; id: string }) {
  const timeline = useTimeline(kind, id);
  return (
    <>
      <h3 id={`timeline-${id}`}>Timeline</h3>
      {timeline.isPending ? <Loading what="the timeline" /> : null}
      <ErrorAlert error={timeline.error} />
      {timeline.data?.entries.length === 0 ? <p className="muted">Nothing has happened yet.</p> : null}
      {timeline.data?.entries.length ? (
        <ol className="timeline" aria-labelledby={`timeline-${id}`}>
          {timeline.data.entries.map((entry: TimelineEntry) => (
            <li key={entry.id}>
              <time dateTime={entry.occurred_at} className="small muted">
                {dateTime(entry.occurred_at)}
              </time>
              <span dir="auto">{entry.deal_id && kind !== 'deals' ? <Link to={`/deals?deal=${entry.deal_id}`}>{entry.summary}</Link> : entry.summary}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </>
  );
}
