import { finished, type Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { CountryCode } from 'libphonenumber-js';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type Database, type Tx, sqlStateOf } from '@engage/platform';
import { completeNewContact, type ContactFields, parseContactFields } from '../domain/contact';
import { type CsvEntity, importColumns, rowInput } from '../domain/csv';
import { isCountryCode } from '../domain/phone';
import { CONTACT_BATCH_MATCHES, ORGANIZATION_COUNTRY } from '../infrastructure/contact.sql';
import {
  ADD_IMPORT_PROGRESS,
  COMPANY_MATCH,
  CONTACT_MATCH,
  FINISH_IMPORT_JOB,
  IMPORT_JOB,
  INSERT_IMPORT_JOB,
  RECENT_IMPORT_JOBS,
} from '../infrastructure/csv.sql';
import type { CompanyService } from './company.service';
import type { ContactService } from './contact.service';
import { importCompanyBatch } from './company-import';
import { type ExistingLists, type ImportOutcome as Outcome, type ImportRow as Row, type ImportRowError, matchKeys, rowError, unionLists } from './import-rows';

export type { ImportRowError } from './import-rows';
type Existing = ExistingLists & { id: string };

export interface ImportJob {
  id: string;
  entity: CsvEntity;
  status: 'running' | 'completed' | 'failed';
  processed: number;
  created: number;
  updated: number;
  failed: number;
  errors: ImportRowError[];
  error: string | null;
  created_by: string | null;
  created_at: string;
  finished_at: string | null;
}

// Rows per transaction: progress becomes visible batch by batch, and at most this many rows are
// held in memory while the parser waits (backpressure reaches the request body).
export const IMPORT_BATCH_ROWS = 500;
export const IMPORT_MAX_ERRORS = 100;
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;
const MAX_RECORD_BYTES = 64 * 1024;

interface BatchMatch {
  kind: 'phone' | 'email';
  key: string;
  id: string;
  age: number;
}

// CSV import of contacts or companies: rows are upserted as they are parsed (matched by phone,
// then email; companies also by name) in set-based batches, a bad row reported with its line
// number while the others still land.
export class CsvImportService {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
    private readonly companies: CompanyService,
  ) {}

  async run(ctx: RequestContext, entity: CsvEntity, body: Readable): Promise<ImportJob> {
    // The organization's default country is read once per job, not per row.
    const [job, country] = await this.db.inTenant(ctx, async (tx) => {
      const [org] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
      return [(await tx.query<ImportJob>(INSERT_IMPORT_JOB, [entity, ctx.userId]))[0], isCountryCode(org?.country) ? org.country : undefined] as const;
    });
    const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: MAX_RECORD_BYTES });
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > IMPORT_MAX_BYTES && !parser.destroyed)
        parser.destroy(new DomainError('too_large', 'import.too_large', `a CSV import may be at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`));
    });
    // The upload may have failed while the job was being made, before anything here listened: the
    // stream's state tells then, where its 'error' event has gone by (and a stream destroyed
    // before its end would leave the parser waiting for ever).
    finished(body, { writable: false }, (error) => {
      if (error && !parser.destroyed) parser.destroy(error instanceof DomainError ? error : brokenOff());
    });
    body.pipe(parser);
    let columns: (string | null)[] | undefined;
    let batch: Row[] = [];
    // csv-parse reports the line a record ends on; errors name the line it starts on.
    let previous = { lines: 0, empty_lines: 0 };
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number; empty_lines: number } }>) {
        const line = previous.lines + 1 + (info.empty_lines - previous.empty_lines);
        previous = info;
        if (!columns) {
          columns = importColumns(entity, record);
          continue;
        }
        batch.push({ line, cells: record });
        if (batch.length >= IMPORT_BATCH_ROWS) {
          await this.importBatch(ctx, job.id, entity, columns, batch, country);
          batch = [];
        }
      }
      if (!columns) throw new DomainError('validation', 'import.empty', 'the CSV has no header row');
      if (batch.length > 0) await this.importBatch(ctx, job.id, entity, columns, batch, country);
      return await this.finish(ctx, job.id, 'completed', null);
    } catch (error) {
      body.unpipe(parser);
      body.resume(); // drain the rest of the upload so the answer reaches the client
      const failure = importFailure(error);
      await this.finish(ctx, job.id, 'failed', failure?.message ?? internalReason(error)).catch(() => undefined);
      if (!failure) throw error;
      throw new DomainError(
        failure.kind,
        failure.code,
        failure.message,
        { job_id: job.id },
        `the import stopped; GET /functions/v1/imports/${job.id} shows what was saved before`,
      );
    }
  }

  async get(ctx: RequestContext, id: string): Promise<ImportJob> {
    if (!isUuid(id)) throw new DomainError('validation', 'import.invalid_id', 'import id must be a UUID');
    const [job] = await this.db.inTenant(ctx, (tx) => tx.query<ImportJob>(IMPORT_JOB, [id]));
    if (!job) throw NotFound('import', id);
    return iso(job);
  }

  async recent(ctx: RequestContext): Promise<{ imports: ImportJob[] }> {
    return { imports: (await this.db.inTenant(ctx, (tx) => tx.query<ImportJob>(RECENT_IMPORT_JOBS))).map(iso) };
  }

  private async importBatch(
    ctx: RequestContext,
    jobId: string,
    entity: CsvEntity,
    columns: (string | null)[],
    rows: Row[],
    country: CountryCode | undefined,
  ): Promise<void> {
    await this.db.inTenant(ctx, async (tx) => {
      const outcome =
        entity === 'contacts'
          ? await this.contactBatch(tx, ctx, columns, rows, country)
          : await importCompanyBatch(tx, this.companies, columns, rows, country, (later) => this.rowByRow(tx, ctx, 'companies', columns, later, country));
      const errors = outcome.errors.sort((a, b) => a.line - b.line);
      await tx.query(ADD_IMPORT_PROGRESS, [
        jobId,
        rows.length,
        outcome.created,
        outcome.updated,
        errors.length,
        JSON.stringify(errors.slice(0, IMPORT_MAX_ERRORS)),
        IMPORT_MAX_ERRORS,
      ]);
    });
  }

  // Contacts go set-based: rows parsed and validated in memory, matched against the organization
  // with one query, then inserted and updated by two statements. A row sharing a phone, an email or
  // a matched contact with an earlier row of the batch runs afterwards on the per-row path (so it
  // sees that row's effect); a database error in the set-based step (a phone claimed concurrently,
  // a company or assignee outside the organization) rolls it back and replays the batch row by
  // row, so the bad row is still reported by its line.
  private async contactBatch(tx: Tx, ctx: RequestContext, columns: (string | null)[], rows: Row[], country: CountryCode | undefined): Promise<Outcome> {
    const invalid: ImportRowError[] = [];
    const parsed: { row: Row; fields: Partial<ContactFields> }[] = [];
    for (const row of rows) {
      try {
        parsed.push({ row, fields: parseContactFields(rowInput(columns, row.cells), country) });
      } catch (error) {
        invalid.push(rowError(row.line, error));
      }
    }
    // Everything that reaches the database is on the savepoint: a value it refuses (a NUL
    // character, a phone claimed meanwhile, a link outside the organization) replays the batch.
    let batch: (Outcome & { later: Row[] }) | undefined;
    await tx.query('SAVEPOINT import_batch');
    try {
      const errors = [...invalid];
      const phones = [...new Set(parsed.flatMap((p) => p.fields.phones ?? []))];
      const emails = [...new Set(parsed.flatMap((p) => p.fields.emails ?? []))];
      const found = phones.length > 0 || emails.length > 0 ? await tx.query<BatchMatch>(CONTACT_BATCH_MATCHES, [phones, emails]) : [];
      const byPhone = new Map(found.filter((m) => m.kind === 'phone').map((m) => [m.key, m]));
      const byEmail = new Map(found.filter((m) => m.kind === 'email').map((m) => [m.key, m]));
      const seen = new Set<string>();
      const creates: ContactFields[] = [];
      const merges: { id: string; changes: Partial<ContactFields> }[] = [];
      const later: Row[] = [];
      for (const { row, fields } of parsed) {
        const phoneMatches = (fields.phones ?? []).map((phone) => byPhone.get(phone)).filter((m) => m !== undefined);
        const match = oldest(phoneMatches) ?? oldest((fields.emails ?? []).map((email) => byEmail.get(email)).filter((m) => m !== undefined));
        const keys = [...(fields.phones ?? []).map((k) => `p:${k}`), ...(fields.emails ?? []).map((k) => `e:${k}`), ...(match ? [`c:${match.id}`] : [])];
        // Phones held by two contacts end in a conflict the per-row path reports.
        const conflicting = new Set(phoneMatches.map((m) => m.id)).size > 1;
        const repeated = keys.some((key) => seen.has(key));
        keys.forEach((key) => seen.add(key));
        if (repeated || conflicting) later.push(row);
        else if (match) merges.push({ id: match.id, changes: fields });
        else {
          try {
            creates.push(completeNewContact(fields));
          } catch (error) {
            errors.push(rowError(row.line, error));
          }
        }
      }
      const { created, updated } = await this.contacts.importManyIn(tx, ctx, creates, merges);
      await tx.query('RELEASE SAVEPOINT import_batch');
      batch = { created: created.length, updated: updated.length, errors, later };
    } catch {
      await tx.query('ROLLBACK TO SAVEPOINT import_batch');
    }
    if (!batch) {
      const replay = await this.rowByRow(
        tx,
        ctx,
        'contacts',
        columns,
        parsed.map((p) => p.row),
        country,
      );
      return { created: replay.created, updated: replay.updated, errors: [...invalid, ...replay.errors] };
    }
    const rest = await this.rowByRow(tx, ctx, 'contacts', columns, batch.later, country);
    return { created: batch.created + rest.created, updated: batch.updated + rest.updated, errors: [...batch.errors, ...rest.errors] };
  }

  // Each row on its own savepoint: a bad row is rolled back and reported, the others land.
  private async rowByRow(
    tx: Tx,
    ctx: RequestContext,
    entity: CsvEntity,
    columns: (string | null)[],
    rows: Row[],
    country: CountryCode | undefined,
  ): Promise<Outcome> {
    let created = 0;
    let updated = 0;
    const errors: ImportRowError[] = [];
    for (const row of rows) {
      await tx.query('SAVEPOINT import_row');
      try {
        const input = rowInput(columns, row.cells);
        const outcome = entity === 'contacts' ? await this.upsertContact(tx, ctx, input, country) : await this.upsertCompany(tx, ctx, input, country);
        if (outcome === 'created') created++;
        else updated++;
        await tx.query('RELEASE SAVEPOINT import_row');
      } catch (error) {
        await tx.query('ROLLBACK TO SAVEPOINT import_row');
        errors.push(rowError(row.line, error));
      }
    }
    return { created, updated, errors };
  }

  private async upsertContact(tx: Tx, ctx: RequestContext, input: Record<string, unknown>, country: CountryCode | undefined): Promise<'created' | 'updated'> {
    const { phones, emails } = matchKeys(input, country);
    const [existing] = phones.length > 0 || emails.length > 0 ? await tx.query<Existing>(CONTACT_MATCH, [phones, emails]) : [];
    if (!existing) {
      await this.contacts.createIn(tx, ctx, input);
      return 'created';
    }
    await this.contacts.updateIn(tx, ctx, existing.id, unionLists(input, existing, phones, emails));
    return 'updated';
  }

  private async upsertCompany(tx: Tx, ctx: RequestContext, input: Record<string, unknown>, country: CountryCode | undefined): Promise<'created' | 'updated'> {
    const { phones, emails } = matchKeys(input, country);
    const name = typeof input.name === 'string' ? input.name.trim() : null;
    const [existing] = await tx.query<Existing>(COMPANY_MATCH, [phones, emails, name]);
    if (!existing) {
      await this.companies.createIn(tx, ctx, input);
      return 'created';
    }
    await this.companies.updateIn(tx, ctx, existing.id, unionLists(input, existing, phones, emails));
    return 'updated';
  }

  private async finish(ctx: RequestContext, id: string, status: 'completed' | 'failed', error: string | null): Promise<ImportJob> {
    const [job] = await this.db.inTenant(ctx, (tx) => tx.query<ImportJob>(FINISH_IMPORT_JOB, [id, status, error]));
    return iso(job);
  }
}

// The match the per-row path would pick: the oldest contact (ties by id).
function oldest(matches: BatchMatch[]): BatchMatch | undefined {
  return matches.reduce<BatchMatch | undefined>((best, m) => (!best || m.age < best.age || (m.age === best.age && m.id < best.id) ? m : best), undefined);
}

// The reasons a whole import stops: a bad header, malformed CSV (csv-parse names the line), a
// record too large, or the upload breaking off.
function importFailure(error: unknown): { kind: DomainError['kind']; code: string; message: string } | undefined {
  if (error instanceof DomainError) return { kind: error.kind, code: error.code, message: error.message };
  // Every parser error (its codes are not all prefixed CSV_, e.g. INVALID_OPENING_QUOTE) is the
  // upload's fault, and says on which line.
  if (error instanceof CsvError) return { kind: 'validation', code: 'import.invalid_csv', message: `malformed CSV: ${error.message}` };
  return undefined;
}

const brokenOff = () => new DomainError('validation', 'import.upload_aborted', 'the upload broke off before the whole file arrived');

// A failed job always says why; an unexpected error is named by its SQLSTATE or class only.
function internalReason(error: unknown): string {
  const sqlState = sqlStateOf(error);
  const name = error instanceof Error ? error.name : typeof error;
  return `the import stopped on an internal error (${sqlState ? `SQLSTATE ${sqlState}` : name}); rows counted in processed were saved`;
}

function iso(job: ImportJob): ImportJob {
  return { ...job, created_at: new Date(job.created_at).toISOString(), finished_at: job.finished_at === null ? null : new Date(job.finished_at).toISOString() };
}
