import { CsvImport } from '../contacts/csv-import';
import { useLocation } from '../router';
import { PageHeading } from '../ui/page';
import { CompaniesList } from './companies-list';
import { CompanyDetails } from './company-details';
import { CompanyDuplicates } from './company-duplicates';
import '../deals/crm.css';

// Companies (issue 35, item 5): the list; a company at ?company=<id>; the duplicate finder and
// merge at ?duplicates=1; the CSV import at ?import=1.
export function CompaniesPage() {
  const { query } = useLocation();
  const id = query.get('company');
  return (
    <div className="crm-page">
      <PageHeading>Companies</PageHeading>
      {id ? (
        <CompanyDetails key={id} id={id} />
      ) : query.get('duplicates') ? (
        <CompanyDuplicates />
      ) : query.get('import') ? (
        <CsvImport entity="companies" back="/companies" />
      ) : (
        <CompaniesList />
      )}
    </div>
  );
}
