import { DomainError } from '@engage/shared-kernel';
import { API_KEYS_MANAGE, assertAllowed, isAllowed, MEMBERS_MANAGE } from './permissions';
import { assertAcceptablePassword, normalizeEmail } from './password-policy';

describe('permissions', () => {
  it('should let OWNER and ADMIN manage API keys and refuse AGENT', () => {
    expect(isAllowed('OWNER', API_KEYS_MANAGE)).toBe(true);
    expect(isAllowed('ADMIN', API_KEYS_MANAGE)).toBe(true);
    expect(isAllowed('AGENT', API_KEYS_MANAGE)).toBe(false);
    expect(() => assertAllowed('AGENT', API_KEYS_MANAGE)).toThrow(
      expect.objectContaining({ code: 'insufficient_role', message: 'Role AGENT may not api_keys manage' }),
    );
  });

  it('should refuse an API key or unknown role everything that needs a member role', () => {
    for (const role of ['API_KEY', 'SYSTEM', 'anon', '']) expect(isAllowed(role, MEMBERS_MANAGE)).toBe(false);
    expect(() => assertAllowed('API_KEY', MEMBERS_MANAGE)).toThrow(DomainError);
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
