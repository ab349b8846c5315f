import { useDeferredValue, useState } from 'react';
import { exportCsv } from '../contacts/contacts.api';
import { Link, navigate } from '../router';
import { ListToolbar, Pager, SearchField } from '../ui/list-page';
import { ErrorAlert, Loading } from '../ui/page';
import { COMPANY_PAGE, useCompanyList } from './companies.api';

// Companies by name, 50 a page; a search (ranked by the API); the duplicate finder; CSV import and export.
export function CompaniesList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search);
  const list = useCompanyList(page, deferred);
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / COMPANY_PAGE));
  return (
    <>
      <ListToolbar
        primary={{ label: 'Find duplicates', onClick: () => navigate('/companies?duplicates=1') }}
        onImport={() => navigate('/companies?import=1')}
        exportCsv={() => exportCsv('companies')}
      />
      <div className="filters" role="search" aria-label="Companies">
        <SearchField
          id="company-search"
          label="Search companies"
          value={search}
          placeholder="Name, website, industry, email or phone"
          onChange={(value) => {
            setSearch(value);
            setPage(1);
          }}
        />
      </div>
      {list.isPending ? <Loading what="companies" /> : null}
      <ErrorAlert error={list.error} />
      {list.data ? (
        <p role="status" className="small muted">
          {list.data.total === 0
            ? search
              ? 'No companies match.'
              : 'No companies yet.'
            : `${list.data.total.toLocaleString()} ${list.data.total === 1 ? 'company' : 'companies'}.`}
        </p>
      ) : null}
      {list.data?.companies.length ? (
        <table>
          <caption className="visually-hidden">{search ? 'Companies matching the search, best first' : 'Companies by name'}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Country</th>
              <th scope="col">Industry</th>
              <th scope="col">Website</th>
            </tr>
          </thead>
          <tbody>
            {list.data.companies.map((company) => (
              <tr key={company.id}>
                <td dir="auto">
                  <Link to={`/companies?company=${company.id}`}>{company.name}</Link>
                </td>
                <td dir="auto">{company.country}</td>
                <td dir="auto">{company.industry}</td>
                <td dir="auto">{company.website}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {!search && pages > 1 ? <Pager label="Company pages" page={page} pages={pages} onPage={setPage} /> : null}
    </>
  );
}
