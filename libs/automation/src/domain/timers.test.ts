import { timerChangeOf } from './timers';

describe('timerChangeOf', () => {
  const conversation = '0b7f8a52-5d3c-4c1e-9a55-1f0c2d3e4f50';
  const at = '2026-03-01T10:00:00.000Z';
  const event = (type: string, message: unknown) => ({ type, occurredAt: at, payload: { message } });

  it('should arm unanswered and end customer_silent at a customer’s message', () => {
    expect(timerChangeOf(event('message.received', { conversation_id: conversation.toUpperCase(), direction: 'INBOUND' }))).toEqual({
      conversationId: conversation,
      at,
      arm: 'conversation.unanswered',
      end: 'conversation.customer_silent',
    });
  });

  it('should arm customer_silent and end unanswered at a message the business sent', () => {
    expect(timerChangeOf(event('message.sent', { conversation_id: conversation, direction: 'OUTBOUND', origin: 'rule' }))).toEqual({
      conversationId: conversation,
      at,
      arm: 'conversation.customer_silent',
      end: 'conversation.unanswered',
    });
  });

  it('should change nothing for other events, or a message without a conversation', () => {
    expect(timerChangeOf(event('message.delivered', { conversation_id: conversation, direction: 'OUTBOUND' }))).toBeUndefined();
    expect(timerChangeOf(event('message.received', { conversation_id: 'nope', direction: 'INBOUND' }))).toBeUndefined();
    expect(timerChangeOf(event('message.received', null))).toBeUndefined();
    expect(timerChangeOf(event('message.sent', { conversation_id: conversation, direction: 'INBOUND' }))).toBeUndefined();
  });
});
