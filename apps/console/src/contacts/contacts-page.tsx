import { useQuery } from '@tanstack/react-query';
import { fullName, rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface ContactRow {
  id: string;
  first_name: string;
  last_name: string | null;
  phones: string[];
  emails: string[];
  tags: string[];
}

// The newest 50 contacts (lists with search, filters and editing are issue 35, item 5).
export function ContactsPage() {
  const contacts = useQuery({
    queryKey: ['contacts', 'newest'],
    queryFn: () =>
      rows<ContactRow>(supabase.from('contacts').select('id,first_name,last_name,phones,emails,tags').order('created_at', { ascending: false }).limit(50)),
  });
  return (
    <>
      <PageHeading>Contacts</PageHeading>
      {contacts.isPending ? <Loading what="contacts" /> : null}
      <ErrorAlert error={contacts.error} />
      {contacts.data?.length === 0 ? <p>No contacts yet.</p> : null}
      {contacts.data?.length ? (
        <table>
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
            {contacts.data.map((contact) => (
              <tr key={contact.id}>
                <td dir="auto">{fullName(contact)}</td>
                <td dir="ltr">{contact.phones.join(', ')}</td>
                <td dir="auto">{contact.emails.join(', ')}</td>
                <td dir="auto">{contact.tags.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
