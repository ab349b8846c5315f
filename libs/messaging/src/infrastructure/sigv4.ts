import { createHash, createHmac } from 'node:crypto';

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
// RFC 3986 encoding of each path segment, as S3 expects.
const encodeSegment = (s: string) => encodeURIComponent(decodeURIComponent(s)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignInput {
  method: string;
  url: URL;
  headers: Record<string, string>;
  payloadHash: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  amzDate: string; // YYYYMMDD'T'HHMMSS'Z'
  service?: string;
}

// AWS Signature Version 4 for one S3 request (headers signed: all given, lower-cased). Returns the
// Authorization header value. No query string support: the media store does not need it.
export function signV4(input: SignInput): string {
  const service = input.service ?? 's3';
  const headers = Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')]));
  const names = Object.keys(headers).sort();
  const canonical = [
    input.method,
    input.url.pathname.split('/').map(encodeSegment).join('/'),
    '',
    ...names.map((name) => `${name}:${headers[name]}`),
    '',
    names.join(';'),
    input.payloadHash,
  ].join('\n');
  const day = input.amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${input.secretAccessKey}`, day), input.region), service), 'aws4_request');
  return `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope},SignedHeaders=${names.join(';')},Signature=${createHmac('sha256', key).update(toSign).digest('hex')}`;
}

export { sha256Hex };
