import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from '../router';
import { ErrorAlert } from '../ui/page';
import { type ImportJob, type ImportProgress, importCsv } from './contacts.api';
import { type CsvRow, csvRows } from './csv-rows';

// The preview reads this much of the file; a longer file is still imported whole.
const PREVIEW_BYTES = 1 << 20;
const SHOWN_ROWS = 200;

// CSV import of contacts or companies: the file goes up as multipart, a progress bar follows the
// upload and the rows the job has written, then the counts and each row's result (its line's
// error from the job, or imported).
export function CsvImport({ entity, back }: { entity: 'contacts' | 'companies'; back: string }) {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [preview, setPreview] = useState<{ header: string[]; rows: CsvRow[] } | null>(null);
  const run = useMutation({
    mutationFn: async (file: File) => {
      setProgress({ sent: 0, total: file.size });
      setPreview(csvRows(await file.slice(0, PREVIEW_BYTES).text(), SHOWN_ROWS));
      return importCsv(entity, file, setProgress);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: [entity] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const file = (new FormData(event.currentTarget).get('file') as File | null) ?? null;
    if (file && file.size > 0) run.mutate(file);
  };
  const job = run.data ?? progress?.job;
  const uploaded = progress && progress.total > 0 ? progress.sent / progress.total : 0;
  // Until the answer: the upload's share (the rows written follow it, batch by batch).
  const percent = run.isSuccess ? 100 : Math.round(uploaded * 99);
  return (
    <section aria-labelledby="import-heading" className="record-details">
      <p>
        <Link to={back}>Back to {entity}</Link>
      </p>
      <h2 id="import-heading">Import {entity} from CSV</h2>
      <p className="muted small">
        The first row names the columns ({entity === 'contacts' ? 'first_name, last_name, phones, emails, tags, …' : 'name, country, website, industry, …'}
        ); lists are separated by <code>;</code>. A row matching an existing{' '}
        {entity === 'contacts' ? 'contact by phone or email' : 'company by phone, email or name'} updates it, others are created; empty cells never blank a
        field.
      </p>
      <form onSubmit={submit} className="import-form">
        <div className="field">
          <label htmlFor="import-file">CSV file</label>
          <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
        </div>
        <button type="submit" className="primary" disabled={run.isPending}>
          {run.isPending ? 'Importing…' : 'Import'}
        </button>
      </form>
      {progress ? (
        <div className="import-progress">
          <label htmlFor="import-progress">Import progress</label>
          <progress id="import-progress" max={100} value={percent} aria-valuetext={`${percent} %`}>
            {percent} %
          </progress>
          <p role="status" className="small">
            {run.isPending
              ? `Uploaded ${formatBytes(progress.sent)} of ${formatBytes(progress.total)}${job ? `; ${job.processed.toLocaleString()} rows processed` : ''}…`
              : run.isSuccess
                ? `Import ${run.data.status}: ${run.data.processed.toLocaleString()} rows processed, ${run.data.created.toLocaleString()} created, ${run.data.updated.toLocaleString()} updated, ${run.data.failed.toLocaleString()} failed.`
                : 'The import stopped.'}
          </p>
        </div>
      ) : null}
      <ErrorAlert error={run.error} />
      {run.data?.error ? (
        <p role="alert" className="alert" dir="auto">
          {run.data.error}
        </p>
      ) : null}
      {run.isSuccess && preview ? <RowResults job={run.data} preview={preview} /> : null}
    </section>
  );
}

function RowResults({ job, preview }: { job: ImportJob; preview: { header: string[]; rows: CsvRow[] } }) {
  const errors = new Map(job.errors.map((error) => [error.line, error]));
  const lastListed = job.errors.length ? job.errors[job.errors.length - 1].line : 0;
  const unlisted = job.failed > job.errors.length;
  const columns = preview.header.slice(0, 3);
  return (
    <>
      <h3 id="row-results">Result per row</h3>
      {preview.rows.length < job.processed ? (
        <p className="small muted">
          The first {preview.rows.length.toLocaleString()} of {job.processed.toLocaleString()} rows. Every failed row is listed below the table.
        </p>
      ) : null}
      <table aria-labelledby="row-results" className="row-results">
        <thead>
          <tr>
            <th scope="col">Line</th>
            {columns.map((name, index) => (
              <th key={index} scope="col" dir="auto">
                {name}
              </th>
            ))}
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row) => {
            const error = errors.get(row.line);
            const unknown = !error && unlisted && row.line > lastListed;
            return (
              <tr key={row.line} className={error ? 'failed' : undefined}>
                <td>{row.line}</td>
                {columns.map((_, index) => (
                  <td key={index} dir="auto">
                    {row.cells[index] ?? ''}
                  </td>
                ))}
                <td dir="auto">{error ? `Failed: ${error.error}` : unknown ? 'Not known (only the first 100 errors are listed)' : 'Imported'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {job.errors.some((error) => !preview.rows.some((row) => row.line === error.line)) ? (
        <>
          <h3 id="other-errors">Other failed rows</h3>
          <ul aria-labelledby="other-errors">
            {job.errors
              .filter((error) => !preview.rows.some((row) => row.line === error.line))
              .map((error) => (
                <li key={error.line} dir="auto">
                  Line {error.line}: {error.error}
                </li>
              ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}
