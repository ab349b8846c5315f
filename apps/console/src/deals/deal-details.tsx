import { dateTime, fullName } from '../api/rest';
import { Timeline } from '../contacts/contact-details';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { duration, memberName, money, useDeal, useMembers } from './deals.api';

// A deal's fields with its stage history (deal_stage_history) and owner history
// (deal_owner_history: each period with its reason and length), oldest first.
export function DealDetails({ id }: { id: string }) {
  const details = useDeal(id);
  const members = useMembers();
  const stageName = (key: string | null) => (key ? (details.data?.stageNames.get(key) ?? key) : 'Created');
  return (
    <section aria-labelledby="deal-heading" className="record-details">
      <p>
        <Link to="/deals">Back to the board</Link>
      </p>
      {details.isPending ? <Loading what="the deal" /> : null}
      <ErrorAlert error={details.error} />
      {details.data && !details.data.deal ? (
        <p role="alert" className="alert">
          This deal does not exist (any more).
        </p>
      ) : null}
      {details.data?.deal ? (
        <>
          <h2 id="deal-heading" dir="auto">
            {details.data.deal.title}
          </h2>
          <dl className="record-fields">
            <div>
              <dt>Stage</dt>
              <dd>{stageName(details.data.deal.stage)}</dd>
            </div>
            <div>
              <dt>Value</dt>
              <dd>{money(details.data.deal.value, details.data.deal.currency)}</dd>
            </div>
            <div>
              <dt>Probability</dt>
              <dd>{details.data.deal.probability} %</dd>
            </div>
            <div>
              <dt>Contact</dt>
              <dd dir="auto">
                {details.data.deal.contact_id ? (
                  <Link to={`/contacts?contact=${details.data.deal.contact_id}`}>{fullName(details.data.deal.contacts)}</Link>
                ) : (
                  'None'
                )}
              </dd>
            </div>
            <div>
              <dt>Owner</dt>
              <dd dir="auto">{memberName(members.data, details.data.deal.owner_id)}</dd>
            </div>
            <div>
              <dt>Priority</dt>
              <dd>{details.data.deal.priority}</dd>
            </div>
            <div>
              <dt>Expected close</dt>
              <dd>{details.data.deal.expected_close_date ?? '—'}</dd>
            </div>
            <div>
              <dt>Tags</dt>
              <dd dir="auto">{details.data.deal.tags.join(', ') || '—'}</dd>
            </div>
          </dl>
          {details.data.deal.description ? (
            <p dir="auto" className="record-description">
              {details.data.deal.description}
            </p>
          ) : null}
          <h3 id="stage-history">Stage history</h3>
          <table aria-labelledby="stage-history">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {details.data.stages.map((change) => (
                <tr key={change.id}>
                  <td>{dateTime(change.changed_at)}</td>
                  <td>{change.from_stage ? stageName(change.from_stage) : '—'}</td>
                  <td>{stageName(change.to_stage)}</td>
                  <td dir="auto">{change.changed_by ? memberName(members.data, change.changed_by) : 'The system'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3 id="owner-history">Owner history</h3>
          {details.data.owners.length === 0 ? (
            <p className="muted">This deal has never had an owner.</p>
          ) : (
            <table aria-labelledby="owner-history">
              <thead>
                <tr>
                  <th scope="col">Owner</th>
                  <th scope="col">From</th>
                  <th scope="col">Until</th>
                  <th scope="col">For</th>
                  <th scope="col">Reason</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {details.data.owners.map((period) => (
                  <tr key={period.id}>
                    <td dir="auto">{memberName(members.data, period.owner_id)}</td>
                    <td>{dateTime(period.started_at)}</td>
                    <td>{period.ended_at ? dateTime(period.ended_at) : 'now'}</td>
                    <td>{duration(period.duration_seconds, period.started_at, period.ended_at)}</td>
                    <td>{period.reason}</td>
                    <td dir="auto">{period.changed_by ? memberName(members.data, period.changed_by) : 'The system'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Timeline kind="deals" id={id} />
        </>
      ) : null}
    </section>
  );
}
