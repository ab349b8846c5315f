import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../api/rest';
import { Link, navigate, useLocation } from '../router';
import { managesOrganization, useProfile } from '../settings/profile.api';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';
import { BotFlowList, BotFlowPage } from './bots-page';
import { RuleEditor } from './rule-editor';
import { deleteRule, dryRun, getRule, listRules, listRuns, type Rule, RULES, type RuleFields, saveRule } from './rules.api';

// Automation (issue 38 item 3): the organization's rules with on/off, each rule's editor, its dry
// run against a record and its run log, failures first. Every member reads; OWNER and ADMIN write.
export function AutomationPage() {
  const { path } = useLocation();
  const id = path.startsWith('/automation/rules/') ? path.slice('/automation/rules/'.length) : null;
  const bots = path === '/automation/bots' || path.startsWith('/automation/bots/');
  const flowId = path.startsWith('/automation/bots/') ? path.slice('/automation/bots/'.length) : null;
  return (
    <>
      <PageHeading>Automation</PageHeading>
      <nav aria-label="Automation" className="subnav">
        <ul>
          <li>
            <Link to="/automation" aria-current={bots ? undefined : 'page'}>
              Rules
            </Link>
          </li>
          <li>
            <Link to="/automation/bots" aria-current={bots ? 'page' : undefined}>
              Bot flows
            </Link>
          </li>
        </ul>
      </nav>
      {flowId ? <BotFlowPage id={flowId} /> : bots ? <BotFlowList /> : id ? <RulePage id={id} /> : <RuleList />}
    </>
  );
}

function RuleList() {
  const queryClient = useQueryClient();
  const editable = managesOrganization(useProfile().data?.role);
  const rules = useQuery({ queryKey: RULES, queryFn: listRules });
  // The box follows the click at once; the API's answer (or refusal, which puts it back) follows.
  const toggle = useMutation({
    mutationFn: (rule: Rule) => saveRule(rule.id, { is_active: !rule.is_active }),
    onMutate: (rule) =>
      queryClient.setQueryData<Rule[]>(RULES, (current) =>
        current?.map((candidate) => (candidate.id === rule.id ? { ...candidate, is_active: !rule.is_active } : candidate)),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: RULES }),
  });
  return (
    <section aria-labelledby="rules-heading">
      <h2 id="rules-heading">Rules</h2>
      <p className="muted small">When an event happens and its conditions hold, a rule runs its actions; every run is logged.</p>
      {editable ? (
        <button type="button" className="primary" onClick={() => navigate('/automation/rules/new')}>
          New rule
        </button>
      ) : null}
      {rules.isPending ? <Loading what="rules" /> : null}
      <ErrorAlert error={rules.error ?? toggle.error} />
      {rules.data ? (
        rules.data.length === 0 ? (
          <p className="muted">No rules yet.</p>
        ) : (
          <table aria-label="Rules">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Event</th>
                <th scope="col">Actions</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {rules.data.map((rule) => (
                <tr key={rule.id}>
                  <td dir="auto">
                    <Link to={`/automation/rules/${rule.id}`}>{rule.name}</Link>
                  </td>
                  <td>{rule.event}</td>
                  <td>{rule.actions.map((action) => String(action.type)).join(', ')}</td>
                  <td>
                    <input
                      type="checkbox"
                      checked={rule.is_active}
                      disabled={!editable || toggle.isPending}
                      onChange={() => toggle.mutate(rule)}
                      aria-label={`${rule.name} active`}
                    />
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

function RulePage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const editable = managesOrganization(useProfile().data?.role);
  const isNew = id === 'new';
  const rule = useQuery({ queryKey: [...RULES, id], queryFn: () => getRule(id), enabled: !isNew });
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (fields: RuleFields) => saveRule(isNew ? null : id, fields),
    onMutate: () => setSaved(false),
    onSuccess: (stored) => {
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: RULES });
      if (isNew) navigate(`/automation/rules/${stored.id}`, { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteRule(id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: RULES });
      navigate('/automation');
    },
  });
  if (!isNew && rule.isPending) return <Loading what="the rule" />;
  if (!isNew && (rule.error || !rule.data)) return <ErrorAlert error={rule.error ?? new Error('This rule does not exist.')} />;
  const current = isNew ? null : (rule.data ?? null);
  return (
    <>
      <p>
        <Link to="/automation">Back to rules</Link>
      </p>
      <h2 dir="auto">{current ? current.name : 'New rule'}</h2>
      <RuleEditor
        key={current?.id ?? 'new'}
        rule={current}
        editable={editable}
        error={save.error}
        pending={save.isPending}
        onSave={(fields) => save.mutate(fields)}
      />
      {saved ? <p role="status">Rule saved.</p> : null}
      {current && editable ? (
        <p>
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Delete rule
          </button>
        </p>
      ) : null}
      <ErrorAlert error={remove.error} />
      {current ? (
        <>
          <RuleTest rule={current} />
          <RunLog ruleId={current.id} />
        </>
      ) : null}
    </>
  );
}

// What a rule's event is about (docs/automation.md, "Events and their subjects").
const subjectOf = (event: string): string => (event === 'broadcast.response' ? 'message' : event === 'call.analyzed' ? 'call record' : event.split('.')[0]);

function RuleTest({ rule }: { rule: Rule }) {
  const test = useMutation({ mutationFn: (subjectId: string) => dryRun(rule.id, subjectId) });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    test.mutate(String(new FormData(event.currentTarget).get('subject_id') ?? '').trim());
  }
  return (
    <section aria-labelledby="test-heading">
      <h3 id="test-heading">Test against a record</h3>
      <p className="muted small">The id of the {subjectOf(rule.event)} the event would be about; nothing is changed or sent.</p>
      <form onSubmit={submit} className="filters" aria-labelledby="test-heading">
        <div className="field grow">
          <label htmlFor="test-subject">Record id</label>
          <input id="test-subject" name="subject_id" required spellCheck={false} />
        </div>
        <div className="field">
          <button type="submit" disabled={test.isPending}>
            Test rule
          </button>
        </div>
      </form>
      <ErrorAlert error={test.error} />
      {test.data ? (
        <div role="status">
          <p>
            <strong>{test.data.matched ? 'The conditions hold: the rule would run.' : 'The conditions do not hold: the rule would not run.'}</strong>
          </p>
          {test.data.conditions.length > 0 ? (
            <table aria-label="Conditions tested">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Operator</th>
                  <th scope="col">Value</th>
                  <th scope="col">Actual</th>
                  <th scope="col">Holds</th>
                </tr>
              </thead>
              <tbody>
                {test.data.conditions.map((condition) => (
                  <tr key={condition.path}>
                    <td>{condition.field}</td>
                    <td>{condition.operator}</td>
                    <td dir="auto">{JSON.stringify(condition.value)}</td>
                    <td dir="auto">{JSON.stringify(condition.actual)}</td>
                    <td>{condition.matched ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          <ul>
            {test.data.actions.map((action, index) => (
              <li key={index} dir="auto">
                {action.type}: would {action.would}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

function RunLog({ ruleId }: { ruleId: string }) {
  const runs = useQuery({ queryKey: ['automation_runs', ruleId], queryFn: () => listRuns(ruleId), refetchInterval: 10_000 });
  return (
    <section aria-labelledby="runs-heading">
      <h3 id="runs-heading">Runs</h3>
      {runs.isPending ? <Loading what="runs" /> : null}
      <ErrorAlert error={runs.error} />
      {runs.data ? (
        runs.data.length === 0 ? (
          <p className="muted">No runs yet.</p>
        ) : (
          <table aria-labelledby="runs-heading">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">Record</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id}>
                  <td>{dateTime(run.started_at)}</td>
                  <td>
                    {run.status}
                    {run.skip_reason ? ` (${run.skip_reason})` : ''}
                  </td>
                  <td>
                    {run.subject_type} <code className="small">{run.subject_id.slice(0, 8)}</code>
                  </td>
                  <td className="wrap" dir="auto">
                    {run.actions.map((action) => `${action.type}: ${action.status}${action.error ? ` — ${action.error}` : ''}`).join('; ')}
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
