import { pgrstError } from '../errors';
import { checkQueryLength } from '../limits';

export interface QueryParam {
  key: string;
  value: string;
  // The raw value held a literal `+`, which decodes to a space (see the %2B pitfall).
  hadPlus: boolean;
}

// Decodes the raw query string the way PostgREST does: `+` is a space, `%2B` is a plus.
export function parseQueryString(raw: string): QueryParam[] {
  checkQueryLength(raw);
  const params: QueryParam[] = [];
  for (const part of raw.replace(/^\?/, '').split('&')) {
    const equals = part.indexOf('=');
    // PostgREST ignores keys without `=`.
    if (equals < 0) continue;
    const rawValue = part.slice(equals + 1);
    params.push({ key: decode(part.slice(0, equals)), value: decode(rawValue), hadPlus: rawValue.includes('+') });
  }
  return params;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw pgrstError('PGRST100', 400, `"failed to parse query string (${text})" (line 1, column 1)`, 'a valid percent-encoding');
  }
}
