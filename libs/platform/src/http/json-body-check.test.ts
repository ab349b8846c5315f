import { checkJsonBody } from './json-body-check';

const nested = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels)) as unknown;

describe('checkJsonBody', () => {
  it('should accept ordinary bodies up to the depth limit', () => {
    expect(checkJsonBody({ a: [1, 'two', { b: null, c: true }], d: 'é' }, 32)).toBeNull();
    expect(checkJsonBody(nested(32), 32)).toBeNull();
    expect(checkJsonBody(undefined, 32)).toBeNull();
    expect(checkJsonBody('plain', 32)).toBeNull();
  });

  it('should refuse nesting deeper than the limit, even 10,000 levels, without overflowing', () => {
    expect(checkJsonBody(nested(33), 32)).toMatchObject({ code: 'body_too_deep', details: { max_depth: 32 } });
    expect(checkJsonBody({ custom_fields: nested(10_000) }, 32)).toMatchObject({ code: 'body_too_deep', kind: 'validation' });
  });

  it('should name the field that holds a NUL character, in a value or in a key', () => {
    expect(checkJsonBody({ email: 'a\u0000@b.example' }, 32)).toMatchObject({ code: 'invalid_characters', details: { field: 'email' } });
    expect(checkJsonBody({ items: [{ text: 'ok' }, { text: 'x\u0000' }] }, 32)).toMatchObject({ details: { field: 'items[1].text' } });
    expect(checkJsonBody({ custom_fields: { 'k\u0000': 1 } }, 32)).toMatchObject({ details: { field: 'custom_fields.k\\u0000' } });
    expect(checkJsonBody('\u0000', 32)).toMatchObject({ details: { field: 'body' } });
  });
});
