import type { DomainError } from '@engage/shared-kernel';
import { pgrstError } from './errors';

// What one request may ask of the database. The shape limits are fixed: a request beyond them is
// refused before any SQL runs. Rows and bytes are settings (DATA_API_MAX_ROWS,
// DATA_API_MAX_RESPONSE_BYTES) handed in by the controller.
export const SHAPE_LIMITS = {
  // Characters of the raw (still percent-encoded) query string; what common proxies accept.
  queryLength: 8192,
  // Items of a whole select, embeds and their items included (`*` counts once).
  selectItems: 200,
  // Times one field (column and JSON path, any alias or cast) or one relation may appear in one select list.
  repeats: 4,
  // Levels of embedding below the requested table.
  embedDepth: 8,
  // Nesting of and()/or() groups in one `or=`/`and=` tree.
  logicDepth: 10,
  // Conditions in one `or=`/`and=` tree.
  logicTerms: 200,
};

export interface ReadLimits {
  // Rows of the top level and of each embedded array (PostgREST's db-max-rows; a larger `limit` is cut).
  maxRows?: number;
  // Bytes of the response body; beyond them the read stops and answers data_api.response_too_large.
  maxResponseBytes: number;
}

// Defaults of the settings, for callers that pass none (engine tests, internal reads of writes).
export const DEFAULT_LIMITS: Required<ReadLimits> = { maxRows: 1000, maxResponseBytes: 64 * 1024 * 1024 };

export const limitError = (code: string, message: string, hint: string, details?: string): DomainError => pgrstError(code, 400, message, details, hint);

export function checkQueryLength(raw: string): void {
  if (raw.length <= SHAPE_LIMITS.queryLength) return;
  throw limitError(
    'data_api.query_too_long',
    `The query string is longer than ${SHAPE_LIMITS.queryLength} characters`,
    'Shorten the request: fewer filters or items, or split it into several requests',
    `${raw.length} characters`,
  );
}

// Counts the items of one select tree as the parser reads them.
export class SelectBudget {
  private items = 0;

  item(): void {
    if (++this.items <= SHAPE_LIMITS.selectItems) return;
    const message = `The select has more than ${SHAPE_LIMITS.selectItems} items`;
    throw limitError('data_api.select_too_large', message, 'Select fewer columns and embeds (a "*" counts as one item)');
  }

  static depth(depth: number, relation: string): void {
    if (depth <= SHAPE_LIMITS.embedDepth) return;
    const message = `Embeds nest more than ${SHAPE_LIMITS.embedDepth} levels deep`;
    throw limitError('data_api.embed_too_deep', message, `Embed fewer levels; "${relation}" is at level ${depth}`);
  }

  // One select list: the same field or relation under many aliases multiplies the response.
  static repeats(keys: string[]): void {
    const seen = new Map<string, number>();
    for (const key of keys) {
      const times = (seen.get(key) ?? 0) + 1;
      seen.set(key, times);
      if (times > SHAPE_LIMITS.repeats) {
        const most = SHAPE_LIMITS.repeats;
        const message = `"${key}" appears more than ${most} times in one select list`;
        throw limitError('data_api.select_repeated', message, `Select each column or relation at most ${most} times`);
      }
    }
  }
}

export class LogicBudget {
  private terms = 0;

  term(): void {
    if (++this.terms <= SHAPE_LIMITS.logicTerms) return;
    const message = `A logic tree has more than ${SHAPE_LIMITS.logicTerms} conditions`;
    throw limitError('data_api.logic_too_large', message, 'Use fewer conditions, e.g. one in.(...) list instead of many eq');
  }

  static depth(depth: number): void {
    if (depth <= SHAPE_LIMITS.logicDepth) return;
    throw limitError('data_api.logic_too_deep', `and()/or() groups nest more than ${SHAPE_LIMITS.logicDepth} levels deep`, 'Flatten the logic tree');
  }
}

export const responseTooLarge = (maxBytes: number): DomainError =>
  limitError(
    'data_api.response_too_large',
    `The response would be larger than ${maxBytes} bytes`,
    'Ask for fewer rows (limit=, Range) or fewer or smaller columns (select=)',
  );
