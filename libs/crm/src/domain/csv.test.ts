import { DomainError } from '@engage/shared-kernel';
import { csvLine, exportColumns, importColumns, rowInput, safeCellText } from './csv';

function caught(work: () => unknown): DomainError {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('CSV cells', () => {
  it('should quote only what needs it, double quotes and join lists', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', ' edge', ['+201001234567', '+201001234568'], null, true, { plan: 'gold' }])).toBe(
      'plain,"a,b","say ""hi""","two\nlines"," edge",+201001234567; +201001234568,,true,"{""plan"":""gold""}"\r\n',
    );
  });

  it('should escape cells a spreadsheet would run as formulas, and leave numbers and phone lists as they are', () => {
    const attacks = ['=HYPERLINK("http://evil.example","x")', '+SUM(1)', "-2+3+cmd|' /C calc'!A0", '@SUM(A1)', '\tTAB', '\rCR'];
    for (const attack of attacks) expect(safeCellText(attack)).toBe(`'${attack}`);
    expect(csvLine(['=1+1', 'a'])).toBe("'=1+1,a\r\n");
    expect(csvLine(['@x,y'])).toBe('"\'@x,y"\r\n');
    for (const plain of ['-5', '+15551234567', '12.5', ['+201001234567', '+201001234568'], 'plain', 'a=b']) expect(safeCellText(plain)).not.toMatch(/^'/);
    expect(csvLine([-5, '+15551234567'])).toBe('-5,+15551234567\r\n');
  });

  it('should map headers loosely, ignore server columns and empty header cells, and refuse unknown or repeated ones', () => {
    expect(importColumns('contacts', ['First Name', 'Phone', 'EMAIL', 'id', 'created_at', ''])).toEqual(['first_name', 'phones', 'emails', null, null, null]);
    expect(caught(() => importColumns('contacts', ['first_name', 'phonez'])).code).toBe('import.unknown_column');
    expect(caught(() => importColumns('companies', ['name', 'Name'])).code).toBe('import.duplicate_column');
  });

  it('should leave empty cells out and read lists, booleans, numbers and JSON', () => {
    expect(
      rowInput(
        ['first_name', 'last_name', 'phones', 'tags', 'opt_in_status', 'custom_fields', null],
        ['Ann', ' ', '+20 100 123 4567; 0020 100 123 4568 ;', 'a;;b', 'Yes', '{"x":1}', 'ignored'],
      ),
    ).toEqual({
      first_name: 'Ann',
      phones: ['+20 100 123 4567', '0020 100 123 4568'],
      tags: ['a', 'b'],
      opt_in_status: true,
      custom_fields: { x: 1 },
    });
    expect(rowInput(['annual_revenue'], ['1,000,000'])).toEqual({ annual_revenue: 1_000_000 });
    expect(caught(() => rowInput(['opt_in_status'], ['maybe'])).code).toBe('import.invalid_cell');
    expect(caught(() => rowInput(['custom_fields'], ['{oops'])).code).toBe('import.invalid_cell');
  });

  it('should check export columns', () => {
    expect(exportColumns('contacts', 'first_name, phones')).toEqual(['first_name', 'phones']);
    expect(exportColumns('companies', undefined)[0]).toBe('id');
    expect(caught(() => exportColumns('contacts', 'first_name,organization_id')).code).toBe('export.unknown_column');
  });
});
