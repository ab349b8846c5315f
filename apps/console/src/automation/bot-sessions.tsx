import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dateTime } from '../api/rest';
import { Link } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { isOpen, listSessions, stopSession } from './bots.api';

// A flow's live sessions (/rest/v1/bot_sessions), asked again every 5 s, each open one with Stop.
export function Sessions({ flowId }: { flowId: string }) {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['bot_sessions', flowId], queryFn: () => listSessions(flowId), refetchInterval: 5_000 });
  const stop = useMutation({ mutationFn: stopSession, onSettled: () => void queryClient.invalidateQueries({ queryKey: ['bot_sessions', flowId] }) });
  return (
    <section aria-labelledby="sessions-heading">
      <h3 id="sessions-heading">Sessions</h3>
      <p className="muted small">The latest 50 conversations this flow ran in, asked again every 5 s. Stopping one leaves the conversation to the people.</p>
      {sessions.isPending ? <Loading what="sessions" /> : null}
      <ErrorAlert error={sessions.error ?? stop.error} />
      {sessions.data ? (
        sessions.data.length === 0 ? (
          <p className="muted">No sessions yet.</p>
        ) : (
          <table aria-labelledby="sessions-heading">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">At node</th>
                <th scope="col">Version</th>
                <th scope="col">Conversation</th>
                <th scope="col">
                  <span className="visually-hidden">Stop</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((session) => (
                <tr key={session.id}>
                  <td>{dateTime(session.started_at)}</td>
                  <td>
                    {session.status}
                    {session.end_reason ? ` (${session.end_reason})` : ''}
                  </td>
                  <td>{session.current_node ?? ''}</td>
                  <td>{session.version}</td>
                  <td>
                    <Link to={`/inbox?c=${session.conversation_id}`}>Open conversation</Link>
                  </td>
                  <td>
                    {isOpen(session) ? (
                      <button type="button" disabled={stop.isPending} onClick={() => stop.mutate(session.id)}>
                        Stop
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}
