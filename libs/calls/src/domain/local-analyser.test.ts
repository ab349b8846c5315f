import { analyseLocally, normalizeWord } from './local-analyser';

describe('the local heuristic analyser', () => {
  it('reads English sentiment, with negation, and frequent keywords', () => {
    const happy = analyseLocally('Thanks, the delivery was great and the installer was very helpful. The delivery came early.');
    expect(happy.sentiment).toBe('positive');
    expect(happy.keywords[0]).toBe('delivery');
    expect(happy.keywords).not.toContain('the');
    expect(analyseLocally('The router is broken again and I want a refund, this is terrible').sentiment).toBe('negative');
    expect(analyseLocally('It was not good at all').sentiment).toBe('negative');
    expect(analyseLocally('Please call me on Tuesday about the invoice').sentiment).toBe('neutral');
  });

  it('reads Arabic sentiment across written forms and keywords without particles', () => {
    const happy = analyseLocally('شكراً جزيلاً، الخدمة ممتازة والتوصيل كان سريع. الخدمة رائعة');
    expect(happy.sentiment).toBe('positive');
    expect(happy.keywords[0]).toBe('الخدمه');
    expect(happy.keywords).not.toContain('كان');
    expect(analyseLocally('عندي مشكلة في الطلب وفيه تأخير كبير، أريد إلغاء الطلب').sentiment).toBe('negative');
    expect(analyseLocally('الخدمة مش ممتازة').sentiment).toBe('negative');
    expect(normalizeWord('إلغاء')).toBe(normalizeWord('الغاء'));
  });

  it('reads a mixed call and an empty one', () => {
    expect(analyseLocally('Hello, شكرا the price is good').sentiment).toBe('positive');
    expect(analyseLocally('')).toEqual({ sentiment: 'neutral', keywords: [], score: 0 });
  });
});
