import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useDeferredValue, useState } from 'react';
import { FilterBuilder } from '../ui/filter-builder';
import { ErrorAlert, Loading } from '../ui/page';
import { type AudiencePreview, createSegment, listSegments, previewAudience, SEGMENTS } from './campaigns.api';

export function PreviewFigures({ preview }: { preview: AudiencePreview }) {
  return (
    <p role="status" className="small">
      {preview.count} {preview.count === 1 ? 'contact' : 'contacts'}, <strong>{preview.reachable} reachable</strong>; skipped: {preview.skipped.no_opt_in} not
      opted in, {preview.skipped.no_phone} without a phone, {preview.skipped.duplicate_phone} duplicate phones.
    </p>
  );
}

// Segments: saved filters over contacts in the data API's grammar, with the count they reach now.
export function Segments({ editable }: { editable: boolean }) {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter);
  const segments = useQuery({ queryKey: SEGMENTS, queryFn: listSegments });
  const preview = useQuery({ queryKey: ['audience-preview', deferred], queryFn: () => previewAudience({ filter: deferred }), enabled: creating, retry: false });
  const create = useMutation({
    mutationFn: createSegment,
    onSuccess: () => {
      setCreating(false);
      setFilter('');
      void queryClient.invalidateQueries({ queryKey: SEGMENTS });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate({ name: String(new FormData(event.currentTarget).get('name') ?? ''), filter });
  }
  return (
    <section aria-labelledby="segments-heading">
      <h2 id="segments-heading">Segments</h2>
      {editable && !creating ? (
        <button type="button" onClick={() => setCreating(true)}>
          New segment
        </button>
      ) : null}
      {creating ? (
        <form onSubmit={submit} aria-label="New segment">
          <div className="field narrow">
            <label htmlFor="segment-name">Segment name</label>
            <input id="segment-name" name="name" required maxLength={200} dir="auto" autoFocus />
          </div>
          <FilterBuilder value={filter} onChange={setFilter} placeholder="tags=cs.{vip}" />
          {preview.data ? <PreviewFigures preview={preview.data} /> : null}
          <ErrorAlert error={create.error ?? preview.error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={create.isPending}>
              Save segment
            </button>
            <button type="button" onClick={() => setCreating(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {segments.isPending ? <Loading what="segments" /> : null}
      <ErrorAlert error={segments.error} />
      {segments.data && segments.data.length > 0 ? (
        <table aria-label="Segments">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Filter</th>
            </tr>
          </thead>
          <tbody>
            {segments.data.map((segment) => (
              <tr key={segment.id}>
                <td dir="auto">{segment.name}</td>
                <td className="wrap">
                  <code>{segment.filter || '(every contact)'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : segments.data ? (
        <p className="muted">No segments yet.</p>
      ) : null}
    </section>
  );
}
