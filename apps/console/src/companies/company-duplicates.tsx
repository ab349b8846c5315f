import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { type DuplicateGroup, mergeCompanies, useDuplicates } from './companies.api';

// The duplicate finder (POST /functions/v1/find-duplicate-companies): each group with its score and
// reasons; choose the company to keep and merge the others into it (their contacts, deals, tasks,
// notes and timeline move to it; they are deleted).
export function CompanyDuplicates() {
  const duplicates = useDuplicates();
  const [merged, setMerged] = useState('');
  return (
    <section aria-labelledby="duplicates-heading" className="record-details">
      <p>
        <Link to="/companies">Back to companies</Link>
      </p>
      <h2 id="duplicates-heading">Possible duplicate companies</h2>
      <p className="muted small">Companies sharing a name (without legal words such as Inc or Ltd), a website, a phone or an email domain.</p>
      {duplicates.isPending ? <Loading what="duplicates" /> : null}
      <ErrorAlert error={duplicates.error} />
      <p role="status" className="small">
        {merged}
      </p>
      {duplicates.data?.groups.length === 0 ? <p>No likely duplicates found.</p> : null}
      {duplicates.data?.groups.map((group) => (
        <DuplicateGroupForm key={group.company_ids.join(',')} group={group} onMerged={setMerged} />
      ))}
    </section>
  );
}

function DuplicateGroupForm({ group, onMerged }: { group: DuplicateGroup; onMerged: (message: string) => void }) {
  const queryClient = useQueryClient();
  const [primary, setPrimary] = useState(group.company_ids[0]);
  const name = (id: string) => group.companies.find((company) => company.id === id)?.name ?? id;
  const merge = useMutation({
    mutationFn: () => mergeCompanies(group.company_ids, primary),
    onSuccess: async (result) => {
      onMerged(
        `Merged ${result.merged_company_ids.length} ${result.merged_company_ids.length === 1 ? 'company' : 'companies'} into ${result.company.name}: ${result.moved_contact_ids.length} contacts and ${result.moved_deal_ids.length} deals moved.`,
      );
      await queryClient.invalidateQueries({ queryKey: ['companies'] });
    },
  });
  const reasons = Array.isArray(group.reasons) ? group.reasons : [group.reasons];
  const legend = group.companies.map((company) => company.name).join(', ');
  return (
    <form
      className="duplicate-group"
      onSubmit={(event) => {
        event.preventDefault();
        merge.mutate();
      }}
    >
      <fieldset>
        <legend dir="auto">
          {legend} <span className="muted small">(score {Math.round(group.score * 100)} %)</span>
        </legend>
        <p className="small muted" dir="auto">
          {reasons.join('; ')}
        </p>
        <p className="small">Keep:</p>
        {group.companies.map((company) => (
          <label key={company.id} className="choice" dir="auto">
            <input
              type="radio"
              name={`primary-${group.company_ids[0]}`}
              value={company.id}
              checked={primary === company.id}
              onChange={() => setPrimary(company.id)}
            />{' '}
            {company.name} <Link to={`/companies?company=${company.id}`}>(open)</Link>
          </label>
        ))}
        <ErrorAlert error={merge.error} />
        <button type="submit" disabled={merge.isPending}>
          Merge {group.companies.length - 1} into {name(primary)}
        </button>
      </fieldset>
    </form>
  );
}
