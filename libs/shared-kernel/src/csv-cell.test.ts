import { csvSafeText } from './csv-cell';

describe('csvSafeText (OWASP CSV injection)', () => {
  it.each([
    '=HYPERLINK("http://evil.example","x")',
    '+SUM(1,2)',
    '@SUM(1)',
    "-2+3+cmd|' /C calc'!A0",
    '\tTAB',
    '\rCR',
    '=',
    '-',
    '-5 days',
    '+1; =cmd',
    '-1e5x',
    '+15551234567\n=1',
  ])('prefixes %j with a quote', (text) => expect(csvSafeText(text)).toBe(`'${text}`));

  it.each(['-5', '+15551234567', '12.5', '-1.5e+20', '+201001234567; +201001234568', 'plain', 'a=b', ' =x', '', "'=already"])('leaves %j as it is', (text) =>
    expect(csvSafeText(text)).toBe(text),
  );
});
