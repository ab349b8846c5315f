import type { CountryCode } from 'libphonenumber-js';
import type { Tx } from '@engage/platform';
import { COMPANY_FIELDS, type CompanyFields, completeNewCompany, parseCompanyFields } from '../domain/company';
import { rowInput } from '../domain/csv';
import { COMPANIES_FOR_UPDATE, COMPANY_BATCH_CANDIDATES, LOWER_NAMES } from '../infrastructure/company.sql';
import type { CompanyService, CompanyView } from './company.service';
import { type ImportOutcome, type ImportRow, type ImportRowError, matchKeys, rowError, unionLists } from './import-rows';

interface Candidate {
  id: string;
  phones: string[];
  emails: string[];
  lname: string;
  age: number;
}

interface Keyed {
  row: ImportRow;
  input: Record<string, unknown>;
  phones: string[];
  emails: string[];
  lname: string | null;
}

const overlaps = (a: string[], b: Set<string>) => a.some((item) => b.has(item));

// The companies a row could match by its own keys: sharing a phone, an email or its name.
function candidatesOf(row: Keyed, candidates: Candidate[]): Candidate[] {
  const phones = new Set(row.phones);
  const emails = new Set(row.emails);
  return candidates.filter((c) => overlaps(c.phones, phones) || overlaps(c.emails, emails) || (row.lname !== null && c.lname === row.lname));
}

// The company the per-row path (COMPANY_MATCH) would pick among them: one sharing a phone first,
// then one sharing an email, then one of the same name; among those the oldest (ties by id).
function bestMatch(row: Keyed, possible: Candidate[]): Candidate | undefined {
  const phones = new Set(row.phones);
  const emails = new Set(row.emails);
  const rank = (c: Candidate) => [overlaps(c.phones, phones) ? 0 : 1, overlaps(c.emails, emails) ? 0 : 1] as const;
  return possible.reduce<Candidate | undefined>((best, c) => {
    if (!best) return c;
    const [a, b] = [rank(c), rank(best)];
    if (a[0] !== b[0]) return a[0] < b[0] ? c : best;
    if (a[1] !== b[1]) return a[1] < b[1] ? c : best;
    return c.age < best.age || (c.age === best.age && c.id < best.id) ? c : best;
  }, undefined);
}

// Companies go set-based like contacts: the rows' keys are read in memory, one query finds every
// company any row could match (by phone, email or name) and each row picks what the per-row rule
// would; new companies are inserted and matched ones updated (locked first, lists unioned) with
// one statement each. A row sharing a phone, an email, a name or a matched company with an earlier
// row of the batch runs afterwards on the per-row path, so it sees that row's effect (and so does
// any later row that could match a company such a row could match); a database
// error in the set-based step rolls it back and replays the batch row by row, so the bad row is
// still reported by its line.
export async function importCompanyBatch(
  tx: Tx,
  companies: CompanyService,
  columns: (string | null)[],
  rows: ImportRow[],
  country: CountryCode | undefined,
  perRow: (rows: ImportRow[]) => Promise<ImportOutcome>,
): Promise<ImportOutcome> {
  const invalid: ImportRowError[] = [];
  const keyed: Keyed[] = [];
  for (const row of rows) {
    try {
      const input = rowInput(columns, row.cells);
      keyed.push({ row, input, ...matchKeys(input, country), lname: null });
    } catch (error) {
      invalid.push(rowError(row.line, error));
    }
  }
  // Everything that reaches the database is on the savepoint: a value it refuses (a NUL character)
  // replays the batch row by row.
  let batch: (ImportOutcome & { later: ImportRow[] }) | undefined;
  await tx.query('SAVEPOINT import_batch');
  try {
    // Names are compared lower-cased by the database, as the per-row match does.
    const named = keyed.filter((k) => typeof k.input.name === 'string');
    if (named.length > 0) {
      const [{ names }] = await tx.query<{ names: string[] }>(LOWER_NAMES, [named.map((k) => (k.input.name as string).trim())]);
      named.forEach((k, i) => (k.lname = names[i]));
    }
    const phones = [...new Set(keyed.flatMap((k) => k.phones))];
    const emails = [...new Set(keyed.flatMap((k) => k.emails))];
    const lnames = [...new Set(named.map((k) => k.lname!))];
    const candidates = keyed.length > 0 ? await tx.query<Candidate>(COMPANY_BATCH_CANDIDATES, [phones, emails, lnames]) : [];

    const errors = [...invalid];
    const seen = new Set<string>();
    const creates: CompanyFields[] = [];
    const matched: { keyed: Keyed; id: string }[] = [];
    const later: ImportRow[] = [];
    for (const k of keyed) {
      const possible = candidatesOf(k, candidates);
      const match = bestMatch(k, possible);
      const keys = [
        ...k.phones.map((p) => `p:${p}`),
        ...k.emails.map((e) => `e:${e}`),
        ...(k.lname !== null ? [`n:${k.lname}`] : []),
        ...(match ? [`c:${match.id}`] : []),
      ];
      const repeated = keys.some((key) => seen.has(key));
      keys.forEach((key) => seen.add(key));
      if (repeated) {
        later.push(k.row);
        // An earlier row may rename the company this row would match, so it may end up matching
        // any other company it could match: later rows of the batch touching one of those wait too.
        for (const c of possible) seen.add(`c:${c.id}`);
      } else if (match) matched.push({ keyed: k, id: match.id });
      else {
        try {
          creates.push(completeNewCompany(parseCompanyFields(k.input, country)));
        } catch (error) {
          errors.push(rowError(k.row.line, error));
        }
      }
    }

    const merges: (CompanyFields & { id: string })[] = [];
    if (matched.length > 0) {
      const current = new Map((await tx.query<CompanyView>(COMPANIES_FOR_UPDATE, [matched.map((m) => m.id)])).map((row) => [row.id, row]));
      for (const { keyed: k, id } of matched) {
        const row = current.get(id);
        if (!row) throw new Error('a matched company was deleted meanwhile'); // replayed row by row
        try {
          // As the per-row update: the row's cells over the company, lists unioned, all validated.
          const next = { ...row, ...parseCompanyFields(unionLists(k.input, row, k.phones, k.emails), country) };
          merges.push({ ...(Object.fromEntries(COMPANY_FIELDS.map((field) => [field, next[field]])) as unknown as CompanyFields), id });
        } catch (error) {
          errors.push(rowError(k.row.line, error));
        }
      }
    }
    const written = await companies.importManyIn(tx, creates, merges);
    await tx.query('RELEASE SAVEPOINT import_batch');
    batch = { ...written, errors, later };
  } catch {
    await tx.query('ROLLBACK TO SAVEPOINT import_batch');
  }
  if (!batch) {
    const replay = await perRow(keyed.map((k) => k.row));
    return { created: replay.created, updated: replay.updated, errors: [...invalid, ...replay.errors] };
  }
  const rest = await perRow(batch.later);
  return { created: batch.created + rest.created, updated: batch.updated + rest.updated, errors: [...batch.errors, ...rest.errors] };
}
