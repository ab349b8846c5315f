import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { dateTime } from '../api/rest';
import { Link, navigate } from '../router';
import { listChannels } from '../settings/channels.api';
import { managesOrganization, useProfile } from '../settings/profile.api';
import { ErrorAlert, Loading } from '../ui/page';
import { NodeForm } from './bot-node-form';
import { Sessions } from './bot-sessions';
import {
  type BotFlow,
  deleteFlow,
  FLOWS,
  type FlowFields,
  type FlowNode,
  getFlow,
  listFlows,
  newNode,
  NODE_TYPES,
  type NodeType,
  problemsOf,
  publishFlow,
  renameNode,
  saveFlow,
  type Trigger,
} from './bots.api';
import { FlowGraph } from './flow-graph';
import './bots.css';

const savedQuery = () => new URLSearchParams(window.location.search);

const triggerWords = (trigger: Trigger) =>
  trigger.type === 'keyword' ? `keyword (${trigger.match ?? 'equals'}): ${(trigger.keywords ?? []).join(', ')}` : trigger.type.replace('_', ' ');

export function BotFlowList() {
  const editable = managesOrganization(useProfile().data?.role);
  const flows = useQuery({ queryKey: FLOWS, queryFn: listFlows });
  return (
    <section aria-labelledby="flows-heading">
      <h2 id="flows-heading">Bot flows</h2>
      <p className="muted small">A bot walks a conversation through messages, questions and branches, then hands it to a person or ends.</p>
      {editable ? (
        <button type="button" className="primary" onClick={() => navigate('/automation/bots/new')}>
          New bot flow
        </button>
      ) : null}
      {flows.isPending ? <Loading what="bot flows" /> : null}
      <ErrorAlert error={flows.error} />
      {flows.data ? (
        flows.data.length === 0 ? (
          <p className="muted">No bot flows yet.</p>
        ) : (
          <table aria-label="Bot flows">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Trigger</th>
                <th scope="col">Active</th>
                <th scope="col">Published</th>
              </tr>
            </thead>
            <tbody>
              {flows.data.map((flow) => (
                <tr key={flow.id}>
                  <td dir="auto">
                    <Link to={`/automation/bots/${flow.id}`}>{flow.name}</Link>
                  </td>
                  <td dir="auto">{triggerWords(flow.trigger)}</td>
                  <td>{flow.is_active ? 'yes' : 'no'}</td>
                  <td>{flow.published_version ? `version ${flow.published_version}, ${dateTime(flow.published_at)}` : 'not yet'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}

const NEW_FLOW: FlowFields = {
  name: '',
  channel_account_ids: [],
  trigger: { type: 'new_conversation' },
  definition: { start: 'welcome', nodes: [{ id: 'welcome', type: 'message', text: 'Hello {{contact.first_name | there}}!' }] },
  is_active: true,
  settings: { expire_minutes: 240, finish_keywords: [], unknown_reply: null },
};

export function BotFlowPage({ id }: { id: string }) {
  const isNew = id === 'new';
  const flow = useQuery({ queryKey: [...FLOWS, id], queryFn: () => getFlow(id), enabled: !isNew });
  if (!isNew && flow.isPending) return <Loading what="the bot flow" />;
  if (!isNew && (flow.error || !flow.data)) return <ErrorAlert error={flow.error ?? new Error('This bot flow does not exist.')} />;
  const current = isNew ? null : (flow.data ?? null);
  return (
    <>
      <p>
        <Link to="/automation/bots">Back to bot flows</Link>
      </p>
      <h2 dir="auto">{current ? current.name : 'New bot flow'}</h2>
      <FlowEditor key={current?.id ?? 'new'} flow={current} />
      {current ? <Sessions flowId={current.id} /> : null}
    </>
  );
}

function FlowEditor({ flow }: { flow: BotFlow | null }) {
  const queryClient = useQueryClient();
  const editable = managesOrganization(useProfile().data?.role);
  const [draft, setDraft] = useState<FlowFields>(() =>
    flow
      ? {
          name: flow.name,
          channel_account_ids: flow.channel_account_ids,
          trigger: flow.trigger,
          definition: flow.definition,
          is_active: flow.is_active,
          settings: flow.settings,
        }
      : NEW_FLOW,
  );
  const [newType, setNewType] = useState<NodeType>('ask');
  const [notice, setNotice] = useState<string | null>(() => (savedQuery().get('saved') ? 'Bot flow saved.' : null));
  // The query that said "just saved" is taken out of the address, so a reload does not say it again.
  useEffect(() => {
    if (flow && savedQuery().get('saved')) navigate(`/automation/bots/${flow.id}`, { replace: true });
  }, [flow]);
  const channels = useQuery({ queryKey: ['channels'], queryFn: listChannels, enabled: editable });
  const save = useMutation({
    mutationFn: async (publish: boolean) => {
      const stored = await saveFlow(flow?.id ?? null, draft);
      if (!publish) return { stored, version: null };
      // The stored flow is what is published; a refusal leaves the saved draft in place.
      const published = await publishFlow(stored.id);
      return { stored, version: published.version };
    },
    onMutate: () => setNotice(null),
    onSuccess: ({ stored, version }) => {
      setNotice(version ? `Published as version ${version}.` : 'Bot flow saved.');
      void queryClient.invalidateQueries({ queryKey: FLOWS });
      // A new flow's page is opened at its address; the query says it was just saved.
      if (!flow) navigate(`/automation/bots/${stored.id}?saved=1`, { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteFlow(flow!.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: FLOWS });
      navigate('/automation/bots');
    },
  });
  const nodes = draft.definition.nodes;
  const ids = nodes.map((node) => node.id);
  const problems = problemsOf(save.error, nodes);
  const setDefinition = (definition: FlowFields['definition']) => setDraft((current) => ({ ...current, definition }));
  const setNode = (index: number, node: FlowNode) =>
    setDefinition({ ...draft.definition, nodes: nodes.map((candidate, at) => (at === index ? node : candidate)) });
  const trigger = draft.trigger;
  const focusNode = (id: string) => document.getElementById(`node-${id}`)?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  return (
    <form
      className="bot-editor"
      aria-label="Bot flow"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(false);
      }}
    >
      <fieldset className="plain">
        <legend className="visually-hidden">The flow</legend>
        <div className="filters">
          <div className="field grow">
            <label htmlFor="flow-name">Name</label>
            <input
              id="flow-name"
              value={draft.name}
              required
              dir="auto"
              disabled={!editable}
              onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="flow-trigger">Trigger</label>
            <select
              id="flow-trigger"
              value={trigger.type}
              disabled={!editable}
              onChange={(event) => {
                const type = event.target.value as Trigger['type'];
                setDraft({ ...draft, trigger: type === 'keyword' ? { type, keywords: [], match: 'equals' } : { type } });
              }}
            >
              <option value="new_conversation">A new conversation</option>
              <option value="any_message">Any message</option>
              <option value="keyword">A keyword</option>
            </select>
          </div>
          {trigger.type === 'keyword' ? (
            <>
              <div className="field">
                <label htmlFor="flow-keywords">Keywords (comma-separated)</label>
                <input
                  id="flow-keywords"
                  defaultValue={(trigger.keywords ?? []).join(', ')}
                  dir="auto"
                  disabled={!editable}
                  onChange={(event) =>
                    setDraft({
                      ...draft,
                      trigger: {
                        ...trigger,
                        keywords: event.target.value
                          .split(',')
                          .map((word) => word.trim())
                          .filter(Boolean),
                      },
                    })
                  }
                />
              </div>
              <div className="field">
                <label htmlFor="flow-match">Match</label>
                <select
                  id="flow-match"
                  value={trigger.match ?? 'equals'}
                  disabled={!editable}
                  onChange={(event) => setDraft({ ...draft, trigger: { ...trigger, match: event.target.value as Trigger['match'] } })}
                >
                  <option value="equals">equals</option>
                  <option value="contains">contains</option>
                  <option value="starts_with">starts with</option>
                </select>
              </div>
            </>
          ) : null}
          <div className="field">
            <label>
              <input
                type="checkbox"
                checked={draft.is_active}
                disabled={!editable}
                onChange={(event) => setDraft({ ...draft, is_active: event.target.checked })}
              />{' '}
              Active
            </label>
          </div>
        </div>
        {editable ? (
          <fieldset className="checklist">
            <legend>Channels</legend>
            {channels.isPending ? <Loading what="channels" /> : null}
            <ErrorAlert error={channels.error} />
            {(channels.data ?? []).map((channel) => (
              <label key={channel.id}>
                <input
                  type="checkbox"
                  checked={draft.channel_account_ids.includes(channel.id)}
                  onChange={(event) =>
                    setDraft({
                      ...draft,
                      channel_account_ids: event.target.checked
                        ? [...draft.channel_account_ids, channel.id]
                        : draft.channel_account_ids.filter((candidate) => candidate !== channel.id),
                    })
                  }
                />{' '}
                <span dir="auto">{channel.name}</span>
              </label>
            ))}
          </fieldset>
        ) : null}
        <div className="filters">
          <div className="field">
            <label htmlFor="flow-expire">Expires after (minutes)</label>
            <input
              id="flow-expire"
              type="number"
              value={draft.settings.expire_minutes ?? ''}
              disabled={!editable}
              onChange={(event) =>
                setDraft({ ...draft, settings: { ...draft.settings, expire_minutes: event.target.value === '' ? undefined : Number(event.target.value) } })
              }
            />
          </div>
          <div className="field grow">
            <label htmlFor="flow-unknown">Reply to an answer it cannot use</label>
            <input
              id="flow-unknown"
              value={draft.settings.unknown_reply ?? ''}
              dir="auto"
              disabled={!editable}
              onChange={(event) => setDraft({ ...draft, settings: { ...draft.settings, unknown_reply: event.target.value || null } })}
            />
          </div>
        </div>
      </fieldset>
      {problems.general.length > 0 ? (
        <div role="alert" className="alert">
          {problems.general.map((text) => (
            <p key={text} dir="auto">
              {text}
            </p>
          ))}
        </div>
      ) : null}
      <h3>Graph</h3>
      <FlowGraph definition={draft.definition} problems={new Set(problems.byNode.keys())} onSelect={focusNode} />
      <h3 id="nodes-heading">Nodes</h3>
      <div className="field">
        <label htmlFor="flow-start">Start</label>
        <select
          id="flow-start"
          value={draft.definition.start}
          disabled={!editable}
          onChange={(event) => setDefinition({ ...draft.definition, start: event.target.value })}
        >
          {ids.includes(draft.definition.start) ? null : <option value={draft.definition.start}>{draft.definition.start || '(none)'}</option>}
          {ids.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </div>
      {nodes.map((node, index) => (
        <NodeForm
          key={`${index}-${node.id}`}
          node={node}
          ids={ids}
          isStart={node.id === draft.definition.start}
          problems={problems.byNode.get(node.id) ?? []}
          editable={editable}
          onChange={(changed) => setNode(index, changed)}
          onRename={(to) => setDefinition(renameNode(draft.definition, node.id, to))}
          onRemove={() => setDefinition({ ...draft.definition, nodes: nodes.filter((_, at) => at !== index) })}
          onMakeStart={() => setDefinition({ ...draft.definition, start: node.id })}
        />
      ))}
      {editable ? (
        <>
          <div className="filters">
            <div className="field">
              <label htmlFor="flow-new-type">Type of the new node</label>
              <select id="flow-new-type" value={newType} onChange={(event) => setNewType(event.target.value as NodeType)}>
                {NODE_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type.replace('_', ' ')}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <button type="button" onClick={() => setDefinition({ ...draft.definition, nodes: [...nodes, newNode(newType, ids)] })}>
                Add node
              </button>
            </div>
          </div>
          <p className="actions">
            <button type="submit" disabled={save.isPending}>
              Save draft
            </button>
            {flow ? (
              <button type="button" className="primary" disabled={save.isPending} onClick={() => save.mutate(true)}>
                Publish
              </button>
            ) : null}
            {flow ? (
              <button type="button" disabled={remove.isPending} onClick={() => remove.mutate()}>
                Delete bot flow
              </button>
            ) : null}
          </p>
        </>
      ) : null}
      {save.error && problems.byNode.size > 0 ? (
        <p role="alert" className="alert" dir="auto">
          {save.error.message}
        </p>
      ) : null}
      <ErrorAlert error={remove.error} />
      {notice ? <p role="status">{notice}</p> : null}
      {flow ? (
        <p className="muted small">
          {flow.published_version ? `Published: version ${flow.published_version}, ${dateTime(flow.published_at)}.` : 'Not published yet.'}
        </p>
      ) : null}
    </form>
  );
}
