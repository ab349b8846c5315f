import { createHmac } from 'node:crypto';
import { metaSignatureMatches, parseMetaWebhook } from './meta-webhook';

describe('Meta webhook bodies', () => {
  it('should check sha256= signatures over the exact bytes', () => {
    const raw = Buffer.from('{"object":"page","entry":[]}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(raw).digest('hex')}`;
    expect(metaSignatureMatches(raw, good, 's3cret')).toBe(true);
    expect(metaSignatureMatches(Buffer.from(`${raw.toString()} `), good, 's3cret')).toBe(false);
    expect(metaSignatureMatches(raw, good, 'other')).toBe(false);
    for (const bad of [undefined, '', good.slice(7), 'sha1=' + good.slice(7), `${good}00`, 'sha256=zz']) {
      expect(metaSignatureMatches(raw, bad, 's3cret')).toBe(false);
    }
  });

  it('should turn messages, echoes, postbacks and receipts into events, skipping what it does not use', () => {
    const events = parseMetaWebhook({
      object: 'page',
      entry: [
        {
          id: '111',
          messaging: [
            { sender: { id: 'u1' }, recipient: { id: '111' }, timestamp: 1764000000000, message: { mid: 'm1', text: 'hi\u0000', reply_to: { mid: 'm0' } } },
            { sender: { id: '111' }, recipient: { id: 'u1' }, message: { mid: 'm2', text: 'from the page', is_echo: true } },
            { sender: { id: 'u1' }, recipient: { id: '111' }, delivery: { mids: ['m2'], watermark: 1764000000500 } },
            { sender: { id: 'u1' }, recipient: { id: '111' }, read: { watermark: 1764000000900 } },
            { sender: { id: 'u1' }, recipient: { id: '111' }, reaction: { mid: 'm2', action: 'react' } },
            { sender: { id: 'u1' }, recipient: { id: '111' }, message: { mid: 'm3' } },
          ],
        },
        { id: '../etc', messaging: [{ sender: { id: 'u1' }, message: { mid: 'm9', text: 'x' } }] },
      ],
    });
    expect(events.map((e) => e.payload)).toEqual([
      {
        type: 'social_message',
        id: 'm1',
        user: 'u1',
        echo: false,
        text: 'hi',
        media: [],
        reply_to: 'm0',
        timestamp: '2025-11-24T16:00:00.000Z',
        postback: null,
      },
      { type: 'social_message', id: 'm2', user: 'u1', echo: true, text: 'from the page', media: [], reply_to: null, timestamp: null, postback: null },
      { type: 'social_receipt', user: 'u1', status: 'delivered', mids: ['m2'], watermark: '2025-11-24T16:00:00.500Z' },
      { type: 'social_receipt', user: 'u1', status: 'read', mids: [], watermark: '2025-11-24T16:00:00.900Z' },
    ]);
    expect(events.every((e) => e.kind === 'messenger' && e.accountId === '111')).toBe(true);
    expect(parseMetaWebhook({ object: 'whatsapp_business_account', entry: [] })).toEqual([]);
    expect(() => parseMetaWebhook({ object: 'page' })).toThrow(/entry/);
  });
});
