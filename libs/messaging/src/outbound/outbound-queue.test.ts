import { DomainError } from '@engage/shared-kernel';
import { applyPacingPatch, defaultPacing, estimateDrain } from './pacing';
import { manualPauseReason, parseQueuedSend, parseQueueItemsQuery } from './outbound-queue';
import { expectedTimes } from './queue-estimate';

const HOUR = 3_600_000;
const NOW = new Date('2026-01-15T12:00:00Z');
const ACCOUNT = '7d4ad6d4-4a0b-4d64-9f4e-6e0c3f1d2a11';
const CONTACT = '0b5e7a35-3a3b-4ac8-8f7a-2f9d2b1c0d22';

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation') return (error.details as { field: string }).field;
    throw error;
  }
  return undefined;
};

describe('parseQueuedSend', () => {
  const ok = { channel_account_id: ACCOUNT, to: '+20 100 123 4567', text: 'Your code is 1234' };

  it('should take one recipient, the text and an optional media address and kind', () => {
    expect(parseQueuedSend(ok)).toEqual({
      channelAccountId: ACCOUNT,
      recipient: { to: '+20 100 123 4567' },
      text: 'Your code is 1234',
      mediaUrl: null,
      mediaKind: null,
    });
    const media = parseQueuedSend({
      channel_account_id: ACCOUNT,
      contact_id: CONTACT.toUpperCase(),
      text: 'See',
      media_url: 'https://x.example/a.pdf',
      media_kind: 'document',
    });
    expect(media).toMatchObject({ recipient: { contactId: CONTACT }, mediaUrl: 'https://x.example/a.pdf', mediaKind: 'document' });
  });

  it('should name the field of every malformed request', () => {
    const cases: [string, unknown][] = [
      ['body', 'text'],
      ['body', [ok]],
      ['channel_account_id', { ...ok, channel_account_id: undefined }],
      ['channel_account_id', { ...ok, channel_account_id: 'nope' }],
      ['channel_account_id', { ...ok, channel_account_id: 42 }],
      ['to', { channel_account_id: ACCOUNT, text: 'Hi' }],
      ['contact_id', { ...ok, contact_id: CONTACT }],
      ['conversation_id', { channel_account_id: ACCOUNT, contact_id: CONTACT, conversation_id: CONTACT, text: 'Hi' }],
      ['to', { ...ok, to: 201001234567 }],
      ['to', { ...ok, to: 'call me' }],
      ['to', { ...ok, to: '1'.repeat(65) }],
      ['contact_id', { channel_account_id: ACCOUNT, contact_id: 'x', text: 'Hi' }],
      ['conversation_id', { channel_account_id: ACCOUNT, conversation_id: 7, text: 'Hi' }],
      ['text', { ...ok, text: undefined }],
      ['text', { ...ok, text: '  ' }],
      ['text', { ...ok, text: 5 }],
      ['text', { ...ok, text: 'a'.repeat(4097) }],
      ['text', { ...ok, text: 'nul \u0000' }],
      ['media_url', { ...ok, media_url: 'ftp://x.example/a.jpg' }],
      ['media_url', { ...ok, media_url: ['https://x.example/a.jpg'] }],
      ['media_url', { ...ok, media_url: `https://x.example/${'a'.repeat(2048)}` }],
      ['media_kind', { ...ok, media_url: 'https://x.example/a.jpg', media_kind: 'audio' }],
      ['media_kind', { ...ok, media_kind: 'image' }],
    ];
    expect(cases.map(([, body]) => fieldOf(() => parseQueuedSend(body)))).toEqual(cases.map(([field]) => field));
  });

  it('should count characters, not UTF-16 units: 4096 emoji are allowed', () => {
    expect(parseQueuedSend({ ...ok, text: '🙂'.repeat(4096) }).text).toHaveLength(8192);
  });
});

describe('manualPauseReason', () => {
  it("should say 'manual', or 'manual: ' and the reason given", () => {
    expect([manualPauseReason(undefined), manualPauseReason({}), manualPauseReason({ reason: null })]).toEqual(['manual', 'manual', 'manual']);
    expect(manualPauseReason({ reason: '  number under review ' })).toBe('manual: number under review');
  });

  it('should name the field of a malformed reason', () => {
    const bad = [{ reason: 5 }, { reason: '' }, { reason: 'x'.repeat(201) }, { reason: 'bell \u0007' }, { reason: 'nul \u0000' }];
    expect(bad.map((body) => fieldOf(() => manualPauseReason(body)))).toEqual(['reason', 'reason', 'reason', 'reason', 'reason']);
    expect(fieldOf(() => manualPauseReason({ why: 'x' }))).toBe('why');
    expect(fieldOf(() => manualPauseReason('x'))).toBe('body');
  });
});

describe('parseQueueItemsQuery', () => {
  it('should default to QUEUED items, 50 from the first', () => {
    expect(parseQueueItemsQuery({})).toEqual({ channelAccountId: null, origin: null, status: 'QUEUED', limit: 50, offset: 0 });
    expect(parseQueueItemsQuery({ channel_account_id: ACCOUNT, origin: 'broadcast', status: 'PENDING', limit: '200', offset: '10' })).toEqual({
      channelAccountId: ACCOUNT,
      origin: 'broadcast',
      status: 'PENDING',
      limit: 200,
      offset: 10,
    });
  });

  it('should name every malformed parameter', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['channel_account_id', { channel_account_id: 'x' }],
      ['channel_account_id', { channel_account_id: [ACCOUNT, ACCOUNT] }],
      ['origin', { origin: 'martian' }],
      ['origin', { origin: 'customer' }],
      ['status', { status: 'SENT' }],
      ['status', { status: 'queued' }],
      ['limit', { limit: '0' }],
      ['limit', { limit: '201' }],
      ['limit', { limit: '1.5' }],
      ['limit', { limit: 'ten' }],
      ['offset', { offset: '-1' }],
      ['offset', { offset: '10001' }],
      ['page', { page: '2' }],
    ];
    expect(cases.map(([, query]) => fieldOf(() => parseQueueItemsQuery(query)))).toEqual(cases.map(([field]) => field));
  });
});

describe('expectedTimes', () => {
  const state = (sends: Date[], last: Date | null) => ({
    now: NOW,
    accountCreatedAt: new Date(NOW.getTime() - 3 * 24 * HOUR),
    accountSends: sends,
    lastAutomatedSendAt: last,
  });

  it('should give as the k-th time what estimateDrain gives for k messages (warm-up caps, gaps, quiet hours)', () => {
    const chatApp = defaultPacing('chat_app');
    const sends = Array.from({ length: 30 }, (_, i) => new Date(NOW.getTime() - 23 * HOUR + i * 90_000));
    const s = state(sends, sends[sends.length - 1]);
    const options = { coldShare: 0.4, timeZone: 'Africa/Cairo' };
    const times = expectedTimes(chatApp, s, 60, options);
    expect(times.map((at, k) => at.getTime() - estimateDrain(chatApp, s, k + 1, options).getTime())).toEqual(times.map(() => 0));
    // Non-decreasing, and the warm-up's 40 an hour on day 4 holds some back past an hour.
    expect(times.every((at, k) => k === 0 || at >= times[k - 1])).toBe(true);
    expect(times[59].getTime() - NOW.getTime()).toBeGreaterThan(HOUR);
  });

  it('should equal estimateDrain on kinds whose caps look back an hour, a second or not at all', () => {
    const sends = Array.from({ length: 40 }, (_, i) => new Date(NOW.getTime() - 50 * 60_000 + i * 30_000));
    const policies = [
      defaultPacing('email'),
      defaultPacing('sms'),
      applyPacingPatch(defaultPacing('messenger'), { per_hour: 45 }),
      applyPacingPatch(defaultPacing('chat_app'), { warmup: false, per_day: null, per_hour: 50 }),
    ];
    for (const policy of policies) {
      const s = state(sends, sends[sends.length - 1]);
      const times = expectedTimes(policy, s, 30, { coldShare: 0.5 });
      expect(times.map((at, k) => at.getTime() - estimateDrain(policy, s, k + 1, { coldShare: 0.5 }).getTime())).toEqual(times.map(() => 0));
    }
  });

  it('should give every message now when pacing is off', () => {
    const off = applyPacingPatch(defaultPacing('email'), { gap_seconds: [0, 0], cold_gap_seconds: [0, 0] });
    expect(expectedTimes(off, state([], null), 3)).toEqual([NOW, NOW, NOW]);
    expect(expectedTimes(off, state([], null), 0)).toEqual([]);
  });
});
