import { type DomainError, ValidationFailed } from '@engage/shared-kernel';

// What PostgreSQL and our validators cannot take, refused once for every JSON body: nesting deeper
// than the limit (class-transformer and PostgreSQL's jsonb parser recurse per level, so 10,000
// levels overflowed a stack and answered 500) and NUL characters (text and jsonb cannot store
// U+0000). The walk is iterative, so the check itself cannot overflow.
export function checkJsonBody(body: unknown, maxDepth: number): DomainError | null {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return nulCharacter(path || 'body');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      return ValidationFailed('body_too_deep', `The JSON body nests deeper than ${maxDepth} levels`, { max_depth: maxDepth, at: path || 'body' });
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) pending.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return nulCharacter(field);
      pending.push({ value: item, path: field, depth: depth + 1 });
    }
  }
  return null;
}

const nulCharacter = (field: string) =>
  ValidationFailed('invalid_characters', `${printable(field)} contains a NUL character (U+0000), which cannot be stored`, { field: printable(field) });

const printable = (field: string) => field.replaceAll('\u0000', '\\u0000').slice(0, 200);
