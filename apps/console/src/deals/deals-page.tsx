import { navigate, useLocation } from '../router';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';
import { DealBoard } from './deal-board';
import { DealDetails } from './deal-details';
import { useBoard, usePipelines } from './deals.api';
import './crm.css';

// Deals (issue 35, item 6): one kanban board per pipeline, the default pipeline first; a deal's
// details at ?deal=<id>, the pipeline shown at ?pipeline=<id> so either can be linked.
export function DealsPage() {
  const { query } = useLocation();
  const dealId = query.get('deal');
  const pipelines = usePipelines();
  const pipelineId = query.get('pipeline') ?? pipelines.data?.[0]?.id;
  const board = useBoard(dealId ? undefined : pipelineId);
  return (
    <div className="crm-page">
      <PageHeading>Deals</PageHeading>
      {dealId ? (
        <DealDetails id={dealId} />
      ) : (
        <>
          {pipelines.isPending ? <Loading what="pipelines" /> : null}
          <ErrorAlert error={pipelines.error} />
          {pipelines.data?.length === 0 ? <p>No pipelines yet: the default pipeline appears once the organization is set up.</p> : null}
          {pipelines.data?.length ? (
            <div className="field inline">
              <label htmlFor="pipeline">Pipeline</label>
              <select id="pipeline" value={pipelineId} onChange={(event) => navigate(`/deals?pipeline=${event.target.value}`, { replace: true })}>
                {pipelines.data.map((pipeline) => (
                  <option key={pipeline.id} value={pipeline.id}>
                    {pipeline.name}
                    {pipeline.is_default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {pipelineId && board.isPending ? <Loading what="the board" /> : null}
          <ErrorAlert error={board.error} />
          {board.data ? <DealBoard key={board.data.pipeline_id} board={board.data} /> : null}
        </>
      )}
    </div>
  );
}
