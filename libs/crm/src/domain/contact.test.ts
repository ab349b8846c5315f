import { parseContactFields, parseNewContact } from './contact';

describe('contact fields', () => {
  it('should normalise phones to E.164 and emails to lower case, dropping duplicates', () => {
    const contact = parseNewContact(
      { first_name: ' Ali ', phones: ['01001234567', '+20 100 123 4567'], emails: [' Ali@Example.com ', 'ali@example.com'], tags: ['vip', 'vip', ''] },
      'EG',
    );
    expect(contact).toMatchObject({
      first_name: 'Ali',
      phones: ['+201001234567'],
      emails: ['ali@example.com'],
      tags: ['vip'],
      opt_in_status: false,
      custom_fields: {},
    });
  });

  it('should require a first name on create and refuse unknown fields', () => {
    expect(() => parseNewContact({ last_name: 'x' }, undefined)).toThrow('first_name is required');
    expect(() => parseContactFields({ frist_name: 'typo' }, undefined)).toThrow(expect.objectContaining({ code: 'contact.unknown_field' }));
  });

  it.each([
    [{ first_name: 'x'.repeat(101) }, 'first_name must be at most 100 characters'],
    [{ phones: 'not-a-list' }, 'phones must be an array'],
    [{ phones: ['123'] }, '"123" is not a valid phone number'],
    [{ emails: ['nope'] }, 'emails holds an invalid address'],
    [{ company_id: 'abc' }, 'company_id must be a UUID or null'],
    [{ opt_in_status: 'yes' }, 'opt_in_status must be true or false'],
    [{ custom_fields: [] }, 'custom_fields must be an object'],
    [{ custom_fields: { big: 'x'.repeat(20000) } }, 'custom_fields must be at most'],
    [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags may hold at most 50 items'],
  ])('should refuse %j', (input, message) => {
    expect(() => parseContactFields(input as Record<string, unknown>, 'EG')).toThrow(message);
  });
});
