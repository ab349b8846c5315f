import { fullName } from '../api/rest';
import { Timeline } from '../contacts/contact-details';
import { money } from '../deals/deals.api';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { useCompany } from './companies.api';

// One company: its fields, its contacts and deals, its timeline (its deals' events, notes and tasks).
export function CompanyDetails({ id }: { id: string }) {
  const details = useCompany(id);
  const company = details.data?.company;
  const address = company
    ? [company.address_street, company.address_city, company.address_state, company.address_postal_code, company.address_country].filter(Boolean).join(', ')
    : '';
  return (
    <section aria-labelledby="company-heading" className="record-details">
      <p>
        <Link to="/companies">Back to companies</Link>
      </p>
      {details.isPending ? <Loading what="the company" /> : null}
      <ErrorAlert error={details.error} />
      {details.data && !company ? (
        <p role="alert" className="alert">
          This company does not exist (any more): it may have been merged into another.
        </p>
      ) : null}
      {company ? (
        <>
          <h2 id="company-heading" dir="auto">
            {company.name}
          </h2>
          <dl className="record-fields">
            {(
              [
                ['Country', company.country],
                ['Industry', company.industry],
                ['Website', company.website],
                ['Phones', company.phones.join(', ')],
                ['Emails', company.emails.join(', ')],
                ['Tags', company.tags.join(', ')],
                ['Address', address],
                ['Size', company.company_size == null ? '' : String(company.company_size)],
                ['Annual revenue', company.annual_revenue == null ? '' : String(company.annual_revenue)],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd dir="auto">{value || '—'}</dd>
              </div>
            ))}
          </dl>
          {company.description ? <p dir="auto">{company.description}</p> : null}
          {company.notes ? (
            <p dir="auto" className="record-description">
              {company.notes}
            </p>
          ) : null}
          <h3>Contacts</h3>
          {details.data!.contacts.length === 0 ? (
            <p className="muted">No contacts.</p>
          ) : (
            <ul>
              {details.data!.contacts.map((contact) => (
                <li key={contact.id} dir="auto">
                  <Link to={`/contacts?contact=${contact.id}`}>{fullName(contact)}</Link>
                </li>
              ))}
            </ul>
          )}
          <h3>Deals</h3>
          {details.data!.deals.length === 0 ? (
            <p className="muted">No deals.</p>
          ) : (
            <ul>
              {details.data!.deals.map((deal) => (
                <li key={deal.id} dir="auto">
                  <Link to={`/deals?deal=${deal.id}`}>{deal.title}</Link> · {money(deal.value, deal.currency)} · {deal.stage}
                </li>
              ))}
            </ul>
          )}
          <Timeline kind="companies" id={id} />
        </>
      ) : null}
    </section>
  );
}
