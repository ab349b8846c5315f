import { DomainError } from '@engage/shared-kernel';
import {
  MAX_SCHEDULE_AHEAD_MS,
  notScheduled,
  parseNewScheduledMessage,
  parseScheduledMessageChange,
  parseScheduledMessageQuery,
  parseSendAt,
} from './scheduled-messages';

const now = new Date('2026-11-28T10:00:00.000Z');
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return `${error.kind} ${error.message}`;
    throw error;
  }
  throw new Error('not refused');
};

describe('scheduled message rules', () => {
  it('should take send_at strictly after now and up to 30 days ahead, with its offset', () => {
    expect(parseSendAt('2026-11-28T10:00:00.001Z', now).toISOString()).toBe('2026-11-28T10:00:00.001Z');
    expect(parseSendAt('2026-11-28T12:30:00+02:00', now).toISOString()).toBe('2026-11-28T10:30:00.000Z');
    expect(parseSendAt(new Date(now.getTime() + MAX_SCHEDULE_AHEAD_MS).toISOString(), now).getTime()).toBe(now.getTime() + MAX_SCHEDULE_AHEAD_MS);
    expect(refusal(() => parseSendAt('2026-11-28T10:00:00Z', now))).toBe('validation send_at must be in the future');
    expect(refusal(() => parseSendAt(new Date(now.getTime() + MAX_SCHEDULE_AHEAD_MS + 1).toISOString(), now))).toBe(
      'validation send_at must be at most 30 days ahead',
    );
    for (const value of ['2026-11-29T10:00:00', '2026-11-29', 'tomorrow', 1767225600, null, '2026-02-30T25:00:00Z']) {
      expect(refusal(() => parseSendAt(value, now))).toMatch(/^validation send_at /);
    }
  });

  it('should default media_urls and cancel_on_reply, and count text in characters', () => {
    expect(parseNewScheduledMessage({ text: 'hi', send_at: '2026-11-29T10:00:00Z' }, now)).toEqual({
      text: 'hi',
      mediaUrls: [],
      sendAt: new Date('2026-11-29T10:00:00Z'),
      cancelOnReply: true,
    });
    expect(parseNewScheduledMessage({ text: '🙂'.repeat(4096), send_at: '2026-11-29T10:00:00Z', cancel_on_reply: false }, now).cancelOnReply).toBe(false);
    expect(refusal(() => parseNewScheduledMessage({ text: '🙂'.repeat(4097), send_at: '2026-11-29T10:00:00Z' }, now))).toBe(
      'validation text must be at most 4096 characters',
    );
    expect(refusal(() => parseNewScheduledMessage([], now))).toBe('validation the body must be a JSON object');
    expect(refusal(() => parseScheduledMessageChange({}, now))).toBe('validation give text or send_at');
    expect(parseScheduledMessageChange({ text: 'new' }, now)).toEqual({ text: 'new' });
  });

  it('should read list filters and pages, refusing what it does not know', () => {
    expect(parseScheduledMessageQuery({})).toEqual({ status: undefined, conversationId: undefined, page: 1, limit: 50 });
    expect(parseScheduledMessageQuery({ status: 'sent', page: '2', limit: '200' })).toMatchObject({ status: 'sent', page: 2, limit: 200 });
    expect(refusal(() => parseScheduledMessageQuery({ limit: '1e2' }))).toBe('validation limit must be an integer from 1 to 200');
    expect(refusal(() => parseScheduledMessageQuery({ status: 'SENT' }))).toMatch(/^validation status must be one of scheduled, sending/);
  });

  it('should say why a message that is not scheduled cannot change', () => {
    expect(notScheduled('x', 'sent').message).toBe('Scheduled message x is already sent');
    expect(notScheduled('x', 'sending').message).toBe('Scheduled message x is being sent');
    expect(notScheduled('x', 'cancelled_by_reply')).toMatchObject({ kind: 'conflict', code: 'scheduled_message.not_scheduled' });
  });
});
