import { smsSize } from './sms-encoding';

describe('smsSize', () => {
  it('should count plain text as GSM-7, one septet a character, 160 in one message', () => {
    expect(smsSize('Hello Cairo!')).toEqual({ encoding: 'GSM-7', units: 12, segments: 1 });
    expect(smsSize('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSize('')).toEqual({ encoding: 'GSM-7', units: 0, segments: 0 });
  });

  it('should split longer GSM-7 texts into parts of 153', () => {
    expect(smsSize('a'.repeat(161)).segments).toBe(2);
    expect(smsSize('a'.repeat(306)).segments).toBe(2);
    expect(smsSize('a'.repeat(307)).segments).toBe(3);
  });

  it('should count the extension table (€ [ ] { } ^ ~ | \\ and form feed) as two septets', () => {
    expect(smsSize('€10 [sale] {now} ^~|\\')).toMatchObject({ encoding: 'GSM-7', units: 30 });
    expect(smsSize('€'.repeat(80))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSize(`${'€'.repeat(80)}a`).segments).toBe(2);
  });

  it('should not split an extension character across two parts', () => {
    // 152 septets, then a two-septet € that does not fit the first part's 153.
    const size = smsSize(`${'a'.repeat(152)}€${'a'.repeat(152)}`);
    expect(size.units).toBe(306);
    expect(size.segments).toBe(3);
  });

  it('should take GSM-7 accents and Greek capitals as they are', () => {
    expect(smsSize('Ça va? ñ ü à é ΔΣΩ £ ¥ ¿¡ §').encoding).toBe('GSM-7');
  });

  it('should fall back to UCS-2 for anything else, 70 units in one message and parts of 67', () => {
    expect(smsSize('مرحبا')).toEqual({ encoding: 'UCS-2', units: 5, segments: 1 });
    expect(smsSize('ç')).toMatchObject({ encoding: 'UCS-2' });
    expect(smsSize('x'.repeat(70).replace(/^x/, 'م')).segments).toBe(1);
    expect(smsSize(`م${'x'.repeat(70)}`).segments).toBe(2);
    expect(smsSize(`م${'x'.repeat(133)}`).segments).toBe(2);
    expect(smsSize(`م${'x'.repeat(134)}`).segments).toBe(3);
  });

  it('should count an emoji as two UCS-2 units and never split it', () => {
    expect(smsSize('🎉')).toEqual({ encoding: 'UCS-2', units: 2, segments: 1 });
    const size = smsSize(`${'x'.repeat(66)}🎉${'x'.repeat(66)}`);
    expect(size.units).toBe(134);
    expect(size.segments).toBe(3);
  });
});
