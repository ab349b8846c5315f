import { useMutation } from '@tanstack/react-query';
import { ErrorAlert } from './page';

// The parts the contacts and companies lists share: the toolbar (the page's own first action, CSV
// import and export), the search field and the pager.

export function ListToolbar({
  primary,
  onImport,
  exportCsv,
}: {
  primary: { label: string; onClick: () => void };
  onImport: () => void;
  exportCsv: () => Promise<number>; // the file's size in bytes
}) {
  const exported = useMutation({ mutationFn: exportCsv });
  return (
    <>
      <div className="toolbar">
        <button type="button" className="primary" onClick={primary.onClick}>
          {primary.label}
        </button>
        <button type="button" onClick={onImport}>
          Import CSV
        </button>
        <button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          {exported.isPending ? 'Exporting…' : 'Export CSV'}
        </button>
        {exported.isSuccess ? (
          <span role="status" className="small muted">
            Exported {exported.data.toLocaleString()} bytes as a CSV file.
          </span>
        ) : null}
      </div>
      <ErrorAlert error={exported.error} />
    </>
  );
}

export function SearchField({
  id,
  label,
  value,
  placeholder,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={value} placeholder={placeholder} autoComplete="off" dir="auto" onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}

export function Pager({ label, page, pages, onPage }: { label: string; page: number; pages: number; onPage: (page: number) => void }) {
  return (
    <nav aria-label={label} className="pager">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span className="small">
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
