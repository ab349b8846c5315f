import { normalizePhone, toE164 } from './phone';

describe('phone numbers', () => {
  it.each([
    ['+201001234567', undefined],
    ['+20 100 123 4567', undefined],
    ['0020 100-123-4567', undefined],
    ['00201001234567', undefined],
    ['201001234567', undefined],
    ['201001234567@s.whatsapp.net', undefined],
    ['01001234567', 'EG'],
    ['(010) 0123-4567', 'EG'],
  ] as const)('should read %s (country %s) as +201001234567', (raw, country) => {
    expect(toE164(raw, country)).toBe('+201001234567');
  });

  it('should read a national number by the default country only', () => {
    expect(toE164('01001234567', 'EG')).toBe('+201001234567');
    expect(toE164('07911 123456', 'GB')).toBe('+447911123456');
    expect(toE164('07911 123456')).toBeUndefined();
  });

  it('should refuse what is not a phone number, naming the value', () => {
    expect(() => normalizePhone('12')).toThrow('"12" is not a valid phone number');
    expect(() => normalizePhone('call me')).toThrow(expect.objectContaining({ code: 'contact.invalid_phone' }));
    expect(() => normalizePhone(12345678)).toThrow(expect.objectContaining({ code: 'contact.invalid_phone' }));
    expect(toE164('+1 ' + '2'.repeat(60))).toBeUndefined();
  });
});
