import { bindingMatches, InvalidBinding, parseBindings } from './binding';

const SERVED = ['messages', 'conversations'];
const columns = (table: string) =>
  table === 'messages'
    ? new Map([
        ['id', 'uuid'],
        ['conversation_id', 'uuid'],
        ['status', 'text'],
        ['content', 'text'],
      ])
    : new Map([
        ['id', 'uuid'],
        ['status', 'text'],
        ['assignee_id', 'uuid'],
      ]);
const counter = () => {
  let next = 0;
  return () => ++next;
};
const CONVERSATION = '3f1c2a4e-0000-4000-8000-00000000000a';

describe('postgres_changes bindings', () => {
  it('should echo each binding as the client sent it, with an id, for realtime-js to pair them', () => {
    const bindings = parseBindings(
      [
        { event: '*', schema: 'public', table: 'messages', filter: `conversation_id=eq.${CONVERSATION}` },
        { event: 'update', schema: 'public', table: 'conversations' },
      ],
      SERVED,
      columns,
      counter(),
    );
    expect(bindings.map((binding) => binding.echo)).toEqual([
      { id: 1, event: '*', schema: 'public', table: 'messages', filter: `conversation_id=eq.${CONVERSATION}` },
      { id: 2, event: 'update', schema: 'public', table: 'conversations' },
    ]);
  });

  it('should match by table, event and filter', () => {
    const [byConversation, updates, everything] = parseBindings(
      [
        { event: 'INSERT', schema: 'public', table: 'messages', filter: `conversation_id=eq.${CONVERSATION}` },
        { event: 'UPDATE', schema: 'public', table: 'conversations' },
        { event: '*', schema: 'public' },
      ],
      SERVED,
      columns,
      counter(),
    );
    const message = { id: 'm', conversation_id: CONVERSATION };
    expect(bindingMatches(byConversation, 'messages', 'INSERT', message)).toBe(true);
    expect(bindingMatches(byConversation, 'messages', 'UPDATE', message)).toBe(false);
    expect(bindingMatches(byConversation, 'messages', 'INSERT', { ...message, conversation_id: 'other' })).toBe(false);
    expect(bindingMatches(updates, 'messages', 'UPDATE', message)).toBe(false);
    expect(bindingMatches(updates, 'conversations', 'UPDATE', { id: CONVERSATION })).toBe(true);
    expect(bindingMatches(everything, 'conversations', 'DELETE', { id: CONVERSATION })).toBe(true);
    // A DELETE carries the id only: a filter on another column cannot hold for it.
    expect(bindingMatches(byConversation, 'messages', 'DELETE', { id: 'm' })).toBe(false);
  });

  it.each([
    ['an unknown table', [{ event: '*', schema: 'public', table: 'contacts' }], 'table "contacts" is not served by realtime (served: messages, conversations)'],
    ['another schema', [{ event: '*', schema: 'auth', table: 'messages' }], 'schema must be "public"'],
    ['an unknown event', [{ event: 'TRUNCATE', schema: 'public', table: 'messages' }], 'event must be one of *, INSERT, UPDATE, DELETE'],
    ['a filter without a table', [{ event: '*', schema: 'public', filter: 'id=eq.1' }], 'a filter needs a table'],
    ['a bad filter', [{ event: '*', schema: 'public', table: 'messages', filter: 'nope=eq.1' }], 'filter column "nope"'],
    ['an unreadable selected column', [{ event: '*', schema: 'public', table: 'messages', select: ['secret'] }], 'select column "secret"'],
    ['too many bindings', Array.from({ length: 21 }, () => ({ event: '*', schema: 'public', table: 'messages' })), 'at most 20'],
    ['not a list', { event: '*' }, 'must be an array'],
  ])('should refuse %s, naming it', (_name, raw, message) => {
    expect(() => parseBindings(raw, SERVED, columns, counter())).toThrow(InvalidBinding);
    expect(() => parseBindings(raw, SERVED, columns, counter())).toThrow(message);
  });
});
