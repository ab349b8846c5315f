import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { fullName } from '../api/rest';
import { ErrorAlert } from '../ui/page';
import { searchContacts } from './sequences.api';
import './sequences.css';

// Contacts chosen one by one: a name search over the newest 50 (or those matching), each a
// checkbox; `chosen` holds their ids. A sequence's enrolment and a broadcast's audience use it.
export function ContactChoices({ id, legend, chosen, onChange }: { id: string; legend: string; chosen: string[]; onChange: (next: string[]) => void }) {
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search);
  const contacts = useQuery({ queryKey: ['contact-choices', deferred], queryFn: () => searchContacts(deferred) });
  return (
    <>
      <div className="field narrow">
        <label htmlFor={`${id}-search`}>Find contacts</label>
        <input id={`${id}-search`} type="search" value={search} onChange={(event) => setSearch(event.target.value)} dir="auto" />
      </div>
      <fieldset className="checklist contact-choices">
        <legend className="visually-hidden">{legend}</legend>
        {contacts.data?.map((contact) => (
          <label key={contact.id}>
            <input
              type="checkbox"
              checked={chosen.includes(contact.id)}
              onChange={(event) => onChange(event.target.checked ? [...chosen, contact.id] : chosen.filter((candidate) => candidate !== contact.id))}
            />
            <span dir="auto">{fullName(contact)}</span>
          </label>
        ))}
      </fieldset>
      <p className="small muted">{chosen.length} chosen</p>
      <ErrorAlert error={contacts.error} />
    </>
  );
}
