import { DomainError } from '@engage/shared-kernel';
import { assertAllowed, isAllowed } from './permissions';
import { assertAcceptablePassword, normalizeEmail } from './password-policy';

describe('permissions', () => {
  it('should let OWNER and ADMIN manage API keys and refuse AGENT', () => {
    expect(isAllowed('OWNER', 'api_keys.manage')).toBe(true);
    expect(isAllowed('ADMIN', 'api_keys.manage')).toBe(true);
    expect(isAllowed('AGENT', 'api_keys.manage')).toBe(false);
    expect(() => assertAllowed('AGENT', 'api_keys.manage')).toThrow(DomainError);
  });

  it('should refuse an API key or unknown role everything that needs a member role', () => {
    expect(isAllowed('API_KEY', 'members.manage')).toBe(false);
    expect(isAllowed('anon', 'contacts.read')).toBe(false);
  });
});

describe('password and email rules', () => {
  it('should refuse passwords shorter than 8 or longer than 128 characters with weak_password', () => {
    expect(() => assertAcceptablePassword('short')).toThrow(expect.objectContaining({ code: 'weak_password' }));
    expect(() => assertAcceptablePassword('x'.repeat(129))).toThrow(expect.objectContaining({ code: 'weak_password' }));
    expect(() => assertAcceptablePassword(12345678)).toThrow(expect.objectContaining({ code: 'weak_password' }));
    expect(() => assertAcceptablePassword('long enough')).not.toThrow();
  });

  it('should trim and lower-case emails and refuse malformed ones', () => {
    expect(normalizeEmail('  Ana@Example.COM ')).toBe('ana@example.com');
    expect(() => normalizeEmail('not-an-email')).toThrow(DomainError);
    expect(() => normalizeEmail(42)).toThrow(DomainError);
  });
});
