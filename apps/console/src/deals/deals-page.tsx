import { useQuery } from '@tanstack/react-query';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface Pipeline {
  id: string;
  name: string;
  is_default: boolean;
}
interface Stage {
  id: string;
  pipeline_id: string;
  name: string;
  position: number;
}
interface Deal {
  id: string;
  stage_id: string;
  value: number;
  currency: string;
}

// Each pipeline's stages with their deal count and value (the kanban board is issue 35, item 6).
export function DealsPage() {
  const board = useQuery({
    queryKey: ['deals', 'summary'],
    queryFn: async () => {
      const [pipelines, stages, deals] = await Promise.all([
        rows<Pipeline>(supabase.from('pipelines').select('id,name,is_default').order('is_default', { ascending: false }).order('name')),
        rows<Stage>(supabase.from('pipeline_stages').select('id,pipeline_id,name,position').order('position')),
        rows<Deal>(supabase.from('deals').select('id,stage_id,value,currency').limit(1000)),
      ]);
      return { pipelines, stages, deals };
    },
  });
  return (
    <>
      <PageHeading>Deals</PageHeading>
      {board.isPending ? <Loading what="pipelines" /> : null}
      <ErrorAlert error={board.error} />
      {board.data?.pipelines.length === 0 ? <p>No pipelines yet: the default pipeline appears once the organization is set up.</p> : null}
      {board.data?.pipelines.map((pipeline) => (
        <section key={pipeline.id} aria-labelledby={`pipeline-${pipeline.id}`}>
          <h2 id={`pipeline-${pipeline.id}`} dir="auto">
            {pipeline.name}
            {pipeline.is_default ? ' (default)' : ''}
          </h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Stage</th>
                <th scope="col">Deals</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {board.data.stages
                .filter((stage) => stage.pipeline_id === pipeline.id)
                .map((stage) => {
                  const inStage = board.data.deals.filter((deal) => deal.stage_id === stage.id);
                  return (
                    <tr key={stage.id}>
                      <td dir="auto">{stage.name}</td>
                      <td>{inStage.length}</td>
                      <td>{totals(inStage)}</td>
                    </tr>
                  );
                })}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

function totals(deals: Deal[]): string {
  const byCurrency = new Map<string, number>();
  for (const deal of deals) byCurrency.set(deal.currency, (byCurrency.get(deal.currency) ?? 0) + Number(deal.value));
  if (byCurrency.size === 0) return '0';
  return [...byCurrency].map(([currency, sum]) => sum.toLocaleString(undefined, { style: 'currency', currency })).join(' + ');
}
