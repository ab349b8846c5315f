import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime, fullName } from '../api/rest';
import { Link, navigate } from '../router';
import { ErrorAlert, Loading } from '../ui/page';
import { listSegments, SEGMENTS } from './campaigns.api';
import { ContactChoices } from './contact-choices';
import { SequenceForm } from './sequence-form';
import {
  contactNames,
  createSequence,
  type Enrollment,
  type EnrollmentAnswer,
  enroll,
  exitEnrollment,
  getSequence,
  listEnrollments,
  listSequences,
  moveSequence,
  stepWhen,
  type Sequence,
  SEQUENCES,
  type SequenceFields,
  updateSequence,
} from './sequences.api';
import './sequences.css';

const running = (enrollment: Enrollment) => enrollment.status === 'active' || enrollment.status === 'paused';

export function SequenceList({ editable }: { editable: boolean }) {
  const sequences = useQuery({ queryKey: SEQUENCES, queryFn: listSequences, refetchInterval: 10_000 });
  return (
    <section aria-labelledby="sequences-heading">
      <h2 id="sequences-heading">Sequences</h2>
      <p className="muted small">Steps sent to each enrolled contact one after another, until the last step or an exit.</p>
      {editable ? (
        <p>
          <button type="button" className="primary" onClick={() => navigate('/campaigns/sequences/new')}>
            New sequence
          </button>
        </p>
      ) : null}
      {sequences.isPending ? <Loading what="sequences" /> : null}
      <ErrorAlert error={sequences.error} />
      {sequences.data && sequences.data.length > 0 ? (
        <table aria-label="Sequences">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Steps</th>
              <th scope="col">Running</th>
              <th scope="col">Completed</th>
              <th scope="col">Exited</th>
            </tr>
          </thead>
          <tbody>
            {sequences.data.map((sequence) => (
              <tr key={sequence.id}>
                <td dir="auto">
                  <Link to={`/campaigns/sequences/${sequence.id}`}>{sequence.name}</Link>
                </td>
                <td>{sequence.status}</td>
                <td>{sequence.version}</td>
                <td>{sequence.steps.length}</td>
                <td>{sequence.enrollments.active + sequence.enrollments.paused}</td>
                <td>{sequence.enrollments.completed}</td>
                <td>{sequence.enrollments.exited}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : sequences.data ? (
        <p className="muted">No sequences yet.</p>
      ) : null}
    </section>
  );
}

export function NewSequence() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: createSequence,
    onSuccess: (sequence) => {
      queryClient.setQueryData([...SEQUENCES, sequence.id], sequence);
      void queryClient.invalidateQueries({ queryKey: SEQUENCES });
      navigate(`/campaigns/sequences/${sequence.id}`, { replace: true });
    },
  });
  return (
    <section aria-labelledby="new-sequence-heading">
      <p>
        <Link to="/campaigns/sequences">Back to sequences</Link>
      </p>
      <h2 id="new-sequence-heading">New sequence</h2>
      <SequenceForm sequence={null} error={create.error} pending={create.isPending} onSave={(fields) => create.mutate(fields)} />
    </section>
  );
}

// One sequence: its status and version, activate or pause, edit (a new version once activated),
// enrol contacts and the enrolments with their exits.
export function SequenceDetails({ id, editable }: { id: string; editable: boolean }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const sequence = useQuery({ queryKey: [...SEQUENCES, id], queryFn: () => getSequence(id), refetchInterval: 10_000 });
  const stored = (answer: Sequence) => {
    queryClient.setQueryData([...SEQUENCES, id], answer);
    void queryClient.invalidateQueries({ queryKey: SEQUENCES, exact: true });
  };
  const move = useMutation({ mutationFn: (action: 'activate' | 'pause') => moveSequence(id, action), onSuccess: stored });
  const update = useMutation({
    mutationFn: (fields: SequenceFields) => updateSequence(id, fields),
    onSuccess: (answer) => {
      stored(answer);
      setEditing(false);
    },
  });
  if (sequence.isPending) return <Loading what="the sequence" />;
  if (sequence.error) return <ErrorAlert error={sequence.error} />;
  const current = sequence.data;
  return (
    <section aria-labelledby="sequence-heading">
      <p>
        <Link to="/campaigns/sequences">Back to sequences</Link>
      </p>
      <h2 id="sequence-heading" dir="auto">
        {current.name}
      </h2>
      <p role="status">
        Status: <strong>{current.status}</strong>, version {current.version}, on {current.channel_kind === 'sms' ? 'SMS' : 'the chat app'}.
      </p>
      <dl className="figures">
        {(['active', 'paused', 'completed', 'exited'] as const).map((status) => (
          <div key={status}>
            <dt>{status}</dt>
            <dd>{current.enrollments[status]}</dd>
          </div>
        ))}
      </dl>
      {editable ? (
        <div className="actions">
          {current.status !== 'active' ? (
            <button type="button" className="primary" onClick={() => move.mutate('activate')} disabled={move.isPending}>
              Activate
            </button>
          ) : (
            <button type="button" onClick={() => move.mutate('pause')} disabled={move.isPending}>
              Pause
            </button>
          )}
          {editing ? null : (
            <button type="button" onClick={() => setEditing(true)}>
              Edit sequence
            </button>
          )}
        </div>
      ) : null}
      <ErrorAlert error={move.error} />
      {editing ? (
        <SequenceForm
          key={current.version}
          sequence={current}
          error={update.error}
          pending={update.isPending}
          onSave={(fields) => update.mutate(fields)}
          onCancel={() => {
            update.reset();
            setEditing(false);
          }}
        />
      ) : (
        <>
          <h3>Steps (version {current.version})</h3>
          <ol aria-label="Steps">
            {current.steps.map((step, index) => (
              <li key={index}>
                {stepWhen(step)}: <span dir="auto">{step.content.text}</span>
                {step.content.media_url ? <span className="small muted"> (with {step.content.media_kind ?? 'media'})</span> : null}
              </li>
            ))}
          </ol>
          <p className="small muted">
            A run ends on{' '}
            {[current.exit_on.reply ? 'a reply' : '', 'an opt-out', current.exit_on.conversation_resolved ? 'a resolved conversation' : '']
              .filter(Boolean)
              .join(', ')}
            .
          </p>
        </>
      )}
      {editable && current.status === 'active' ? <EnrollForm sequenceId={id} /> : null}
      {editable && current.status !== 'active' ? <p className="muted small">Contacts are enrolled while the sequence is active.</p> : null}
      <Enrollments sequenceId={id} editable={editable} />
    </section>
  );
}

function EnrollForm({ sequenceId }: { sequenceId: string }) {
  const queryClient = useQueryClient();
  const [by, setBy] = useState<'segment' | 'contacts'>('segment');
  const [segmentId, setSegmentId] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [answer, setAnswer] = useState<EnrollmentAnswer | null>(null);
  const segments = useQuery({ queryKey: SEGMENTS, queryFn: listSegments });
  const segment = segmentId || segments.data?.[0]?.id || '';
  const submit = useMutation({
    mutationFn: () => enroll(sequenceId, by === 'segment' ? { segment_id: segment } : { contact_ids: chosen }),
    onMutate: () => setAnswer(null),
    onSuccess: (result) => {
      setAnswer(result);
      setChosen([]);
      void queryClient.invalidateQueries({ queryKey: [...SEQUENCES, sequenceId] });
      void queryClient.invalidateQueries({ queryKey: ['enrollments', sequenceId] });
    },
  });
  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit.mutate();
  }
  return (
    <form onSubmit={send} aria-labelledby="enroll-heading" className="enroll-form">
      <h3 id="enroll-heading">Enrol contacts</h3>
      <fieldset className="plain">
        <legend className="visually-hidden">Enrol by</legend>
        <label className="check">
          <input type="radio" name="enroll-by" checked={by === 'segment'} onChange={() => setBy('segment')} /> A segment
        </label>
        <label className="check">
          <input type="radio" name="enroll-by" checked={by === 'contacts'} onChange={() => setBy('contacts')} /> Chosen contacts
        </label>
      </fieldset>
      {by === 'segment' ? (
        <div className="field narrow">
          <label htmlFor="enroll-segment">Segment</label>
          <select id="enroll-segment" value={segment} onChange={(event) => setSegmentId(event.target.value)} required>
            {segments.data?.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
          {segments.data?.length === 0 ? <p className="muted small">No segments yet: save one under Broadcasts and segments.</p> : null}
        </div>
      ) : (
        <ContactChoices id="enroll" legend="Contacts to enrol" chosen={chosen} onChange={setChosen} />
      )}
      <ErrorAlert error={segments.error ?? submit.error} />
      {answer ? (
        <p role="status">
          Enrolled {answer.enrolled}, already enrolled {answer.already_enrolled}; skipped: {answer.skipped.no_opt_in} not opted in, {answer.skipped.no_phone}{' '}
          without a phone.
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={submit.isPending || (by === 'segment' ? !segment : chosen.length === 0)}>
        Enrol
      </button>
    </form>
  );
}

function Enrollments({ sequenceId, editable }: { sequenceId: string; editable: boolean }) {
  const queryClient = useQueryClient();
  const enrollments = useQuery({ queryKey: ['enrollments', sequenceId], queryFn: () => listEnrollments(sequenceId), refetchInterval: 5_000 });
  const ids = [...new Set((enrollments.data ?? []).map((enrollment) => enrollment.contact_id))].sort();
  const names = useQuery({ queryKey: ['contact-names', ids], queryFn: () => contactNames(ids), enabled: ids.length > 0 });
  const nameOf = (contactId: string) => fullName(names.data?.find((contact) => contact.id === contactId));
  const exit = useMutation({
    mutationFn: (enrollment: Enrollment) => exitEnrollment(sequenceId, enrollment.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['enrollments', sequenceId] });
      void queryClient.invalidateQueries({ queryKey: [...SEQUENCES, sequenceId] });
    },
  });
  return (
    <section aria-labelledby="enrollments-heading">
      <h3 id="enrollments-heading">Enrolments</h3>
      {enrollments.isPending ? <Loading what="enrolments" /> : null}
      <ErrorAlert error={enrollments.error ?? names.error ?? exit.error} />
      {enrollments.data && enrollments.data.length > 0 ? (
        <table aria-label="Enrolments">
          <thead>
            <tr>
              <th scope="col">Contact</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Steps sent</th>
              <th scope="col">Next step</th>
              <th scope="col">Exit reason</th>
              <th scope="col">Enrolled</th>
              {editable ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {enrollments.data.map((enrollment) => (
              <tr key={enrollment.id}>
                <td dir="auto">{nameOf(enrollment.contact_id)}</td>
                <td>{enrollment.status}</td>
                <td>{enrollment.version}</td>
                <td>{enrollment.current_step}</td>
                <td>{dateTime(enrollment.next_step_at) || '—'}</td>
                <td>{enrollment.exit_reason ?? '—'}</td>
                <td>{dateTime(enrollment.enrolled_at)}</td>
                {editable ? (
                  <td>
                    {running(enrollment) ? (
                      <button
                        type="button"
                        onClick={() => exit.mutate(enrollment)}
                        disabled={exit.isPending}
                        aria-label={`Exit ${nameOf(enrollment.contact_id)}`}
                      >
                        Exit
                      </button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : enrollments.data ? (
        <p className="muted">No enrolments yet.</p>
      ) : null}
    </section>
  );
}
