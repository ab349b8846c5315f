import { useMutation } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { exportCsv } from '../contacts/contacts.api';
import { Link, navigate } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { COMPANY_PAGE, useCompanyList } from './companies.api';

// Companies by name, 50 a page; a search (ranked by the API); the duplicate finder; CSV import and export.
export function CompaniesList() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search);
  const list = useCompanyList(page, deferred);
  const exported = useMutation({ mutationFn: () => exportCsv('companies') });
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / COMPANY_PAGE));
  return (
    <>
      <div className="toolbar">
        <button type="button" className="primary" onClick={() => navigate('/companies?duplicates=1')}>
          Find duplicates
        </button>
        <button type="button" onClick={() => navigate('/companies?import=1')}>
          Import CSV
        </button>
        <button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          {exported.isPending ? 'Exporting…' : 'Export CSV'}
        </button>
        {exported.isSuccess ? (
          <span role="status" className="small muted">
            Exported {exported.data.toLocaleString()} bytes as a CSV file.
          </span>
        ) : null}
      </div>
      <ErrorAlert error={exported.error} />
      <div className="filters" role="search" aria-label="Companies">
        <div className="field">
          <label htmlFor="company-search">Search companies</label>
          <input
            id="company-search"
            type="search"
            value={search}
            placeholder="Name, website, industry, email or phone"
            autoComplete="off"
            dir="auto"
            onChange={(event) => {
              setSearch(event.target.value);
              setPage(1);
            }}
          />
        </div>
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
      {!search && pages > 1 ? (
        <nav aria-label="Company pages" className="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span className="small">
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      ) : null}
    </>
  );
}
