import { useQuery } from '@tanstack/react-query';
import { callApi } from '../api/functions';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface Metrics {
  metrics: {
    total_messages: number;
    average_response_time: string | null;
    sla_compliance: number | null;
    total_contacts: number;
  };
}

// GET /rest/v1/analytics/metrics for the API's default period (the last 30 days).
export function DashboardsPage() {
  const metrics = useQuery({ queryKey: ['analytics', 'metrics'], queryFn: () => callApi<Metrics>('/rest/v1/analytics/metrics') });
  const figures = metrics.data?.metrics;
  return (
    <>
      <PageHeading>Dashboards</PageHeading>
      <p className="muted">The last 30 days.</p>
      {metrics.isPending ? <Loading what="metrics" /> : null}
      <ErrorAlert error={metrics.error} />
      {figures ? (
        <dl className="figures">
          <div>
            <dt>Messages</dt>
            <dd>{figures.total_messages}</dd>
          </div>
          <div>
            <dt>Average response time (hours)</dt>
            <dd>{figures.average_response_time ?? 'No replies yet'}</dd>
          </div>
          <div>
            <dt>SLA compliance</dt>
            <dd>{figures.sla_compliance === null ? 'No replies yet' : `${figures.sla_compliance} %`}</dd>
          </div>
          <div>
            <dt>Contacts</dt>
            <dd>{figures.total_contacts}</dd>
          </div>
        </dl>
      ) : null}
    </>
  );
}
