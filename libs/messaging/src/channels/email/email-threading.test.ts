import { answeredIds, messageIds, replyReferences, replySubject, threadSubject } from './email-threading';

describe('email threading rules', () => {
  it('should strip reply and forward prefixes in several languages, repeated or counted, keeping the words as written', () => {
    expect(threadSubject('Re: Order 42')).toBe('Order 42');
    expect(threadSubject('RE: Fwd: AW: SV: Order 42')).toBe('Order 42');
    expect(threadSubject('Re[2]: FW:  Order   42 ')).toBe('Order 42');
    expect(threadSubject('WG: Re(3): Order 42')).toBe('Order 42');
    expect(threadSubject('Regarding Order 42')).toBe('Regarding Order 42');
    expect(threadSubject('Re: ')).toBeNull();
    expect(threadSubject(null)).toBeNull();
  });

  it('should read Message-IDs from headers and put In-Reply-To first, then References newest first', () => {
    expect(messageIds('<a@x> <b@x>, <a@x> junk')).toEqual(['<a@x>', '<b@x>']);
    expect(messageIds(['<a@x>', '<c@y>'])).toEqual(['<a@x>', '<c@y>']);
    expect(messageIds(undefined)).toEqual([]);
    expect(answeredIds('<c@x>', ['<a@x>', '<b@x>', '<c@x>'])).toEqual(['<c@x>', '<b@x>', '<a@x>']);
    expect(answeredIds(null, '<a@x> <b@x>')).toEqual(['<b@x>', '<a@x>']);
  });

  it("should build a reply's subject and References", () => {
    expect(replySubject(undefined, 'Order 42')).toBe('Re: Order 42');
    expect(replySubject('Own subject', 'Order 42')).toBe('Own subject');
    expect(replySubject(undefined, null)).toBe('Re: (no subject)');
    expect(replyReferences(null, [])).toEqual([]);
    expect(replyReferences('<c@x>', ['<a@x>', '<b@x>'])).toEqual(['<a@x>', '<b@x>', '<c@x>']);
    const long = Array.from({ length: 30 }, (_, i) => `<${i}@x>`);
    const capped = replyReferences('<last@x>', long);
    expect(capped).toHaveLength(20);
    expect(capped[0]).toBe('<0@x>');
    expect(capped[19]).toBe('<last@x>');
  });
});
