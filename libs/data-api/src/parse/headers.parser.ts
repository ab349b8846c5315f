import { pgrstError } from '../errors';
import type { MediaType } from './plan';

export type Headers = Record<string, string | string[] | undefined>;

// Header names are case-insensitive; repeated headers arrive as arrays and are comma-joined.
export function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

const MEDIA: Record<string, MediaType> = {
  '*/*': 'json',
  'application/*': 'json',
  'application/json': 'json',
  'application/vnd.pgrst.array+json': 'json',
  'application/vnd.pgrst.object+json': 'object',
  'application/vnd.pgrst.object': 'object',
  'text/csv': 'csv',
  'text/*': 'csv',
};

// The first acceptable type in the order given; none acceptable is 406 PGRST107.
export function parseAccept(accept: string | undefined): MediaType {
  if (accept === undefined || accept.trim() === '') return 'json';
  const types = accept.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
  for (const type of types) if (MEDIA[type]) return MEDIA[type];
  throw pgrstError('PGRST107', 406, `None of these media types are available: ${types.join(', ')}`);
}

// `application/vnd.pgrst.array+json;nulls=stripped` (or the object type): keys with null values are
// left out (supabase-js `.stripNulls()`), decided by the first acceptable type as the media type is.
export function stripsNulls(accept: string | undefined): boolean {
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((text) => text.trim().toLowerCase());
    if (!MEDIA[type]) continue;
    return type.startsWith('application/vnd.pgrst.') && params.some((param) => param.replace(/\s/g, '') === 'nulls=stripped');
  }
  return false;
}

// There is one schema: supabase-js names it `public` in Accept-Profile (reads) / Content-Profile
// (writes); any other is PostgREST's 406 PGRST106.
export function checkProfile(headers: Headers, name: 'accept-profile' | 'content-profile'): void {
  const profile = header(headers, name)?.trim();
  if (profile === undefined || profile === '' || profile === 'public') return;
  throw pgrstError('PGRST106', 406, `Invalid schema: ${profile}`, undefined, 'Only the following schemas are exposed: public');
}
