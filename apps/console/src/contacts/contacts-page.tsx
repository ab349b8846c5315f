import { useLocation } from '../router';
import { PageHeading } from '../ui/page';
import { ContactDetails } from './contact-details';
import { ContactForm } from './contact-form';
import { ContactsList } from './contacts-list';
import { CsvImport } from './csv-import';
import '../deals/crm.css';

// Contacts (issue 35, item 5): the list with search and tag filter; a contact at ?contact=<id>,
// a new one at ?new=1, the CSV import at ?import=1, so each view can be linked.
export function ContactsPage() {
  const { query } = useLocation();
  const id = query.get('contact');
  return (
    <div className="crm-page">
      <PageHeading>Contacts</PageHeading>
      {id ? (
        <ContactDetails key={id} id={id} />
      ) : query.get('new') ? (
        <section aria-labelledby="new-contact">
          <h2 id="new-contact">New contact</h2>
          <ContactForm />
        </section>
      ) : query.get('import') ? (
        <CsvImport entity="contacts" back="/contacts" />
      ) : (
        <ContactsList />
      )}
    </div>
  );
}
