import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('should open what it sealed, and never store the plain text', () => {
    const sealed = box.seal('sk-live-123');
    expect(sealed).not.toContain('sk-live-123');
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(box.open(sealed)).toBe('sk-live-123');
    expect(box.seal('sk-live-123')).not.toEqual(sealed); // fresh IV each time
  });

  it('should refuse a tampered value or another key', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split(':');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join(':'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed secret');
  });
});
