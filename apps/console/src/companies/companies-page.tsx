import { useQuery } from '@tanstack/react-query';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface CompanyRow {
  id: string;
  name: string;
  country: string;
  industry: string;
  website: string;
}

// Companies by name (the duplicate finder and merge are issue 35, item 5).
export function CompaniesPage() {
  const companies = useQuery({
    queryKey: ['companies', 'by-name'],
    queryFn: () => rows<CompanyRow>(supabase.from('companies').select('id,name,country,industry,website').order('name').limit(50)),
  });
  return (
    <>
      <PageHeading>Companies</PageHeading>
      {companies.isPending ? <Loading what="companies" /> : null}
      <ErrorAlert error={companies.error} />
      {companies.data?.length === 0 ? <p>No companies yet.</p> : null}
      {companies.data?.length ? (
        <table>
          <caption className="visually-hidden">Companies by name</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Country</th>
              <th scope="col">Industry</th>
              <th scope="col">Website</th>
            </tr>
          </thead>
          <tbody>
            {companies.data.map((company) => (
              <tr key={company.id}>
                <td dir="auto">{company.name}</td>
                <td dir="auto">{company.country}</td>
                <td dir="auto">{company.industry}</td>
                <td dir="auto">{company.website}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
