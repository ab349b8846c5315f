import { SignJWT } from 'jose';
import { TokenService } from './token-service';

const SECRET = 'a-test-secret-of-at-least-thirty-two-bytes';
const CLAIMS = {
  sub: '6f1d2c3b-0000-4000-8000-000000000001',
  organization_id: '6f1d2c3b-0000-4000-8000-000000000002',
  role: 'OWNER',
  session_id: '6f1d2c3b-0000-4000-8000-000000000003',
  email: 'a@example.com',
};

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: { code?: string }) => error.code,
  );

describe('TokenService.verify', () => {
  afterEach(() => jest.useRealTimers());

  it('should give the same claims for a token verified before, and refuse it once expired although it was remembered', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'setTimeout', 'setInterval'], now: new Date('2026-11-01T10:00:00Z') });
    const tokens = new TokenService(SECRET);
    const { token } = await tokens.issueAccessToken(CLAIMS);
    expect(await tokens.verify(token)).toMatchObject(CLAIMS);
    expect(await tokens.verify(token)).toMatchObject(CLAIMS);
    jest.setSystemTime(new Date('2026-11-01T11:00:01Z'));
    expect(await code(tokens.verify(token))).toBe('token_expired');
  });

  it('should refuse a remembered token with its signature or payload changed', async () => {
    const tokens = new TokenService(SECRET);
    const { token } = await tokens.issueAccessToken(CLAIMS);
    await tokens.verify(token);
    const [header, payload, signature] = token.split('.');
    const otherSignature = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(await code(tokens.verify(`${header}.${payload}.${otherSignature}`))).toBe('bad_jwt');
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'ADMIN' })).toString('base64url');
    expect(await code(tokens.verify(`${header}.${widened}.${signature}`))).toBe('bad_jwt');
    expect(await tokens.verify(token)).toMatchObject({ role: 'OWNER' });
  });

  it('should refuse a token signed with another key, or without exp, every time', async () => {
    const tokens = new TokenService(SECRET);
    const foreign = await new TokenService('another-secret-of-at-least-thirty-two-bytes').issueAccessToken(CLAIMS);
    const endless = await new SignJWT({ ...CLAIMS }).setProtectedHeader({ alg: 'HS256' }).setIssuer('engage').sign(new TextEncoder().encode(SECRET));
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await code(tokens.verify(foreign.token))).toBe('bad_jwt');
      expect(await code(tokens.verify(endless))).toBe('bad_jwt');
    }
  });

  it('should not let callers change the claims it remembers', async () => {
    const tokens = new TokenService(SECRET);
    const { token } = await tokens.issueAccessToken(CLAIMS);
    const claims = await tokens.verify(token);
    expect(() => {
      (claims as Record<string, unknown>).role = 'ADMIN';
    }).toThrow(TypeError);
    expect(await tokens.verify(token)).toMatchObject({ role: 'OWNER' });
  });
});
