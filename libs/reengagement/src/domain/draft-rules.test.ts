import { customerLanguage, draftPrompt, guardDraft, windowEnd } from './draft-rules';

describe('the output guard', () => {
  it('should accept a plain draft, trimmed and unquoted', () => {
    expect(guardDraft('  "Still interested in the blue one?"  ', 'latin')).toEqual({ ok: true, text: 'Still interested in the blue one?' });
  });

  it.each([
    [null, 'the AI answered no text'],
    ['   ', 'the AI answered an empty draft'],
    ['x'.repeat(1001), 'the draft is longer than 1000 characters'],
    ['Hi {{first_name}}!', 'the draft contains a template marker'],
    ['Hi [NAME], still there?', 'the draft contains a template marker'],
    ['Hi {name}', 'the draft contains a template marker'],
    ['Dear <customer>, hello', 'the draft contains a template marker'],
  ])('should refuse %j', (raw, reason) => {
    expect(guardDraft(raw, null)).toEqual({ ok: false, reason });
  });

  it('should count characters, not UTF-16 units (1,000 emoji pass)', () => {
    expect(guardDraft('😀'.repeat(1000), null).ok).toBe(true);
  });

  it('should want the customer’s script when it can be told', () => {
    expect(guardDraft('Hello, still interested?', 'ar')).toEqual({ ok: false, reason: 'the draft is not in the customer’s language' });
    expect(guardDraft('مرحبا، هل ما زلت مهتما؟', 'ar').ok).toBe(true);
    expect(guardDraft('مرحبا', 'latin').ok).toBe(false);
    expect(guardDraft('👍', 'ar').ok).toBe(true);
  });
});

describe('the context', () => {
  it('should tell the customer’s script from their own messages only', () => {
    expect(
      customerLanguage([
        { direction: 'INBOUND', content: 'هل هذا متوفر؟' },
        { direction: 'OUTBOUND', content: 'Yes, it is in stock right now' },
      ]),
    ).toBe('ar');
    expect(customerLanguage([{ direction: 'INBOUND', content: 'Is it available?' }])).toBe('latin');
    expect(customerLanguage([{ direction: 'INBOUND', content: '👍 123' }])).toBeNull();
  });

  it('should give the AI the guidelines, the language hint, the name and the conversation in order', () => {
    const [system, user] = draftPrompt({
      contactName: 'Sara',
      guidelines: 'Formal tone. Never offer discounts.',
      language: 'ar',
      messages: [
        { direction: 'INBOUND', content: 'كم السعر؟' },
        { direction: 'OUTBOUND', content: '200 EGP' },
      ],
    });
    expect(system.content).toContain('Formal tone. Never offer discounts.');
    expect(system.content).toContain('write in Arabic');
    expect(user.content).toBe("The customer's name: Sara.\nThe conversation so far (oldest first):\nCustomer: كم السعر؟\nBusiness: 200 EGP");
  });

  it('should end the window at the channel’s own end, else 24 h after the last customer message', () => {
    const last = new Date('2026-11-23T10:00:00Z');
    expect(windowEnd(last, null).toISOString()).toBe('2026-11-24T10:00:00.000Z');
    expect(windowEnd(last, new Date('2026-11-24T09:00:00Z')).toISOString()).toBe('2026-11-24T09:00:00.000Z');
  });
});
