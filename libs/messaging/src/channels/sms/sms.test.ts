import { signedUrlForms, smsCallbackPayload, smsSignature, smsSignatureMatches } from './sms';

// The provider's published example of a signed request (its documentation and helper libraries).
const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS: [string, string][] = [
  ['Digits', '1234'],
  ['To', '+18005551212'],
  ['From', '+14158675309'],
  ['Caller', '+14158675309'],
  ['CallSid', 'CA1234567890ABCDE'],
];

describe('the SMS provider signature', () => {
  it('should compute the published signature, whatever order the parameters come in', () => {
    expect(smsSignature(URL, PARAMS, '12345')).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    expect(smsSignature(URL, [...PARAMS].reverse(), '12345')).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('should refuse another token, address, value, an extra parameter, a missing or malformed header', () => {
    expect(smsSignatureMatches(URL, PARAMS, '12345', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')).toBe(true);
    expect(smsSignatureMatches(URL, PARAMS, '12346', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')).toBe(false);
    expect(smsSignatureMatches(`${URL}&x=1`, PARAMS, '12345', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')).toBe(false);
    expect(smsSignatureMatches(URL, [...PARAMS.slice(1), ['Digits', '1235']], '12345', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')).toBe(false);
    expect(smsSignatureMatches(URL, [...PARAMS, ['Extra', '']], '12345', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=')).toBe(false);
    for (const header of [undefined, '', 'not base64!', 'RSOYDt4T1cUTdK1PDd93/VVr8B8', 'x'.repeat(300)]) {
      expect(smsSignatureMatches(URL, PARAMS, '12345', header)).toBe(false);
    }
  });

  it('should accept the address signed with or without the default port', () => {
    expect(signedUrlForms('https://a.example/p?q=1')).toEqual(['https://a.example/p?q=1', 'https://a.example:443/p?q=1']);
    expect(signedUrlForms('http://a.example:80/p')).toEqual(['http://a.example:80/p', 'http://a.example/p']);
    expect(signedUrlForms('http://a.example:8080/p')).toEqual(['http://a.example:8080/p']);
    const signed = smsSignature('https://mycompany.com:443/myapp.php?foo=1&bar=2', PARAMS, '12345');
    expect(smsSignatureMatches(URL, PARAMS, '12345', signed)).toBe(true);
  });
});

describe('SMS callbacks as inbound events', () => {
  const form = (params: Record<string, string>) => new Map(Object.entries({ MessageSid: 'SM0123', ...params }));

  it.each([
    ['delivered', { type: 'status', id: 'SM0123', status: 'delivered', error: null }],
    ['read', { type: 'status', id: 'SM0123', status: 'read', error: null }],
    ['undelivered', { type: 'status', id: 'SM0123', status: 'failed', error: 'undelivered (ErrorCode 30003)' }],
    ['failed', { type: 'status', id: 'SM0123', status: 'failed', error: 'failed (ErrorCode 30003)' }],
    ['queued', null],
    ['sending', null],
    ['sent', null],
  ])('should map MessageStatus %s', (status, expected) => {
    const failed = status === 'undelivered' || status === 'failed';
    const params: Record<string, string> = failed ? { MessageStatus: status, ErrorCode: '30003' } : { MessageStatus: status };
    expect(smsCallbackPayload(form(params))).toEqual(expected);
  });

  it('should take an inbound SMS with its MMS media, and refuse what is out of shape', () => {
    const mms = { SmsStatus: 'received', From: '+14155550100', Body: 'hi', NumMedia: '1', MediaUrl0: 'https://m.example/1', MediaContentType0: 'image/jpeg' };
    expect(smsCallbackPayload(form(mms))).toEqual({
      type: 'message',
      id: 'SM0123',
      from: '+14155550100',
      name: null,
      text: 'hi',
      media: [{ url: 'https://m.example/1', kind: 'image' }],
      reply_to: null,
      timestamp: null,
    });
    expect(() => smsCallbackPayload(new Map([['From', '+14155550100']]))).toThrow(/MessageSid/);
    expect(() => smsCallbackPayload(form({ From: '0100', Body: 'x' }))).toThrow(/From/);
    expect(() => smsCallbackPayload(form({ MessageStatus: 'lost' }))).toThrow(/MessageStatus/);
    expect(() => smsCallbackPayload(form({ From: '+14155550100', NumMedia: '11' }))).toThrow(/NumMedia/);
  });
});
