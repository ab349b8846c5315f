import { characterCount, cleanRecipient, parseSendRequest } from './send-request';
import { planCalls } from '../channels/chat-app/provider-calls';
import { canMoveMessage, parseStatusChange } from './statuses';
import { parseInboundPayload } from '../inbound/inbound-payload';

const ORG = '0b7c6f2e-8f5c-4c53-9a55-3d4f2a1b0c9d';

describe('send request (§4.1 step 1 and 2)', () => {
  it('should count characters, not bytes or UTF-16 units', () => {
    expect(characterCount('😀'.repeat(4096))).toBe(4096);
    expect(parseSendRequest({ to: '201001234567', message: '😀'.repeat(4096), organizationId: ORG }).message).toHaveLength(8192);
    expect(() => parseSendRequest({ to: '201001234567', message: 'x'.repeat(4097), organizationId: ORG })).toThrow('at most 4096');
  });

  it('should name the missing field, and refuse wrong types', () => {
    expect(() => parseSendRequest({ message: 'hi', organizationId: ORG })).toThrow('to');
    expect(() => parseSendRequest({ to: '201001234567', organizationId: ORG })).toThrow('message');
    expect(() => parseSendRequest({ to: '201001234567', message: 'hi' })).toThrow('organizationId');
    expect(() => parseSendRequest({ to: 5, message: 'hi', organizationId: ORG })).toThrow('to must be a string');
    expect(() => parseSendRequest({ to: '1', message: 'hi', organizationId: 'nope' })).toThrow('UUID');
    expect(() => parseSendRequest([1])).toThrow('JSON object');
    expect(() => parseSendRequest({ to: '201001234567', message: 'hi', organizationId: ORG, media_urls: ['ftp://x'] })).toThrow('media_urls');
  });

  it('should let a cross-channel send omit `to` when it names the conversation', () => {
    const cross = { originalChannelId: ORG, originalChannelType: 'instagram', responseChannelId: ORG };
    const parsed = parseSendRequest({ message: 'hi', organizationId: ORG, conversationId: ORG, crossChannelResponse: cross });
    expect(parsed).toMatchObject({ to: null, conversationId: ORG, crossChannel: cross });
    expect(() => parseSendRequest({ message: 'hi', organizationId: ORG, crossChannelResponse: cross })).toThrow('to');
  });

  it('should strip the network address suffix', () => {
    expect(cleanRecipient('201001234567@s.whatsapp.net')).toEqual({ cleaned: '201001234567', digits: '201001234567' });
    expect(cleanRecipient('+20 100 123 4567').digits).toBe('201001234567');
    expect(() => cleanRecipient('abc')).toThrow('not a phone number');
  });
});

describe('provider calls (§4.2 and the multi-attachment rules)', () => {
  it('should send text alone with random_string 0 and empty media members', () => {
    expect(planCalls(['201001234567'], 'hello', [], () => 7)).toEqual([
      { UOWCHAT: { random_string: 0, receivers: [{ mobileNum: '201001234567' }], message: 'hello', imageUrl: '', videoUrl: '', documentUrl: '' } },
    ]);
  });

  it('should caption the first attachment with 0 and give calls 2..N unique non-zero nonces', () => {
    const values = [5, 5, 0, 9];
    const calls = planCalls(
      ['1'],
      'caption',
      ['a', 'b', 'c'].map((x) => ({ url: `https://x/${x}.png`, kind: 'image' as const })),
      () => values.shift() as number,
    );
    expect(calls.map((c) => [c.UOWCHAT.random_string, c.UOWCHAT.message, c.UOWCHAT.imageUrl])).toEqual([
      [0, 'caption', 'https://x/a.png'],
      [5, '', 'https://x/b.png'],
      [9, '', 'https://x/c.png'],
    ]);
  });
});

describe('statuses', () => {
  it('should never move a message status backwards', () => {
    expect(canMoveMessage('SENT', 'DELIVERED')).toBe(true);
    expect(canMoveMessage('DELIVERED', 'READ')).toBe(true);
    expect(canMoveMessage('SENT', 'READ')).toBe(true);
    expect(canMoveMessage('READ', 'DELIVERED')).toBe(false);
    expect(canMoveMessage('DELIVERED', 'FAILED')).toBe(false);
    expect(canMoveMessage('SENT', 'FAILED')).toBe(true);
    expect(canMoveMessage('FAILED', 'READ')).toBe(false);
  });

  it('should need a future until for SNOOZED', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseStatusChange('SNOOZED', '2026-01-02T00:00:00Z', now).snoozedUntil?.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    expect(() => parseStatusChange('SNOOZED', undefined, now)).toThrow('snoozed_until');
    expect(() => parseStatusChange('SNOOZED', '2025-01-01T00:00:00Z', now)).toThrow('future');
    expect(() => parseStatusChange('CLOSED', undefined, now)).toThrow('status must be');
    expect(parseStatusChange('RESOLVED', null, now)).toEqual({ status: 'RESOLVED', snoozedUntil: null });
  });
});

describe('inbound payload', () => {
  it('should accept messages and status callbacks and refuse the rest', () => {
    expect(parseInboundPayload({ type: 'message', id: 'p1', from: '201001234567@s.whatsapp.net', text: 'hi' })).toMatchObject({
      type: 'message',
      id: 'p1',
      text: 'hi',
      media: [],
    });
    expect(parseInboundPayload({ type: 'status', id: 'p1', status: 'read' })).toMatchObject({ type: 'status', status: 'read' });
    expect(() => parseInboundPayload({ type: 'status', id: 'p1', status: 'seen' })).toThrow('status must be');
    expect(() => parseInboundPayload({ type: 'message', from: '201001234567', text: 'hi' })).toThrow('id');
    expect(() => parseInboundPayload({ type: 'message', id: 'x', from: '201001234567' })).toThrow('text or media');
    expect(() => parseInboundPayload({ type: 'other', id: 'x' })).toThrow('type');
  });
});
