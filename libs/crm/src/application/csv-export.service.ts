import { Readable } from 'node:stream';
import type { RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { type CsvEntity, csvLine, exportColumns } from '../domain/csv';
import { COMPANIES_EXPORT_PAGE, CONTACTS_EXPORT_PAGE } from '../infrastructure/csv.sql';

export const EXPORT_PAGE_ROWS = 1000;

// CSV export of contacts or companies with the chosen columns, oldest first. Rows are read in
// keyset pages, each in its own short transaction, and written as the client reads, so memory
// stays at one page whatever the size of the organization.
export class CsvExportService {
  constructor(private readonly db: Database) {}

  // Columns are checked before anything is sent, so a bad one is still a clear 400.
  stream(ctx: RequestContext, entity: CsvEntity, requested: string | undefined): Readable {
    const columns = exportColumns(entity, requested);
    const sql = entity === 'contacts' ? CONTACTS_EXPORT_PAGE : COMPANIES_EXPORT_PAGE;
    const db = this.db;
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(columns);
      let after: { key: string; id: string } | null = null;
      for (;;) {
        const page: Record<string, unknown>[] = await db.inTenant(ctx, (tx) => tx.query(sql, [after?.key ?? null, after?.id ?? null, EXPORT_PAGE_ROWS]));
        if (page.length > 0) yield page.map((row) => csvLine(columns.map((column) => row[column]))).join('');
        if (page.length < EXPORT_PAGE_ROWS) return;
        const last = page[page.length - 1];
        after = { key: last.page_key as string, id: last.id as string };
      }
    }
    return Readable.from(lines());
  }
}
