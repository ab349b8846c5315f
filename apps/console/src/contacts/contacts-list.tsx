import { useDeferredValue, useState } from 'react';
import { fullName } from '../api/rest';
import { Link, navigate } from '../router';
import { ListToolbar, Pager, SearchField } from '../ui/list-page';
import { ErrorAlert, Loading } from '../ui/page';
import { exportCsv, PAGE_SIZE, useContactList, useTags } from './contacts.api';

// Contacts 50 a page, newest first: a search that filters as you type (name or phone), a tag
// filter, links to each contact, create, CSV import and export.
export function ContactsList() {
  const [search, setSearch] = useState('');
  const [tag, setTag] = useState('');
  const [page, setPage] = useState(1);
  const deferred = useDeferredValue(search);
  const list = useContactList({ search: deferred, tag, page });
  const tags = useTags();
  const data = list.data;
  return (
    <>
      <ListToolbar
        primary={{ label: 'New contact', onClick: () => navigate('/contacts?new=1') }}
        onImport={() => navigate('/contacts?import=1')}
        exportCsv={() => exportCsv('contacts')}
      />
      <div className="filters" role="search" aria-label="Contacts">
        <SearchField
          id="contact-search"
          label="Search contacts"
          value={search}
          placeholder="Name or phone"
          onChange={(value) => {
            setSearch(value);
            setPage(1);
          }}
        />
        <div className="field">
          <label htmlFor="contact-tag">Tag</label>
          <select
            id="contact-tag"
            value={tag}
            onChange={(event) => {
              setTag(event.target.value);
              setPage(1);
            }}
          >
            <option value="">All tags</option>
            {tags.data?.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {list.isPending ? <Loading what="contacts" /> : null}
      <ErrorAlert error={list.error} />
      {data ? (
        <p role="status" className="small muted">
          {data.total === 0
            ? 'No contacts match.'
            : `${data.total.toLocaleString()} ${data.total === 1 ? 'contact' : 'contacts'}${search || tag ? ' match' : ''}, page ${data.page} of ${data.total_pages}.`}
        </p>
      ) : null}
      {data?.contacts.length ? (
        <table aria-busy={list.isFetching || undefined}>
          <caption className="visually-hidden">Contacts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Phone</th>
              <th scope="col">Email</th>
              <th scope="col">Tags</th>
            </tr>
          </thead>
          <tbody>
            {data.contacts.map((contact) => (
              <tr key={contact.id}>
                <td dir="auto">
                  <Link to={`/contacts?contact=${contact.id}`}>{fullName(contact)}</Link>
                </td>
                <td dir="ltr">{contact.phones.join(', ')}</td>
                <td dir="auto">{contact.emails.join(', ')}</td>
                <td dir="auto">{contact.tags.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {data && data.total > PAGE_SIZE ? <Pager label="Contact pages" page={data.page} pages={data.total_pages} onPage={setPage} /> : null}
    </>
  );
}
