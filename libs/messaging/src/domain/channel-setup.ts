import { DomainError } from '@engage/shared-kernel';

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

// The field naming the account at Meta, per kind: the Facebook page, or the Instagram professional account.
const ID_FIELD: Record<string, string> = { messenger: 'page_id', instagram: 'instagram_account_id' };

// A Messenger or Instagram channel's setup fields (null for other kinds, which take none here).
export function parseMetaAccount(kind: string, input: Record<string, unknown>): { accountId: string; accessToken: string } | null {
  const field = ID_FIELD[kind];
  if (!field) return null;
  const accountId = input[field];
  if (typeof accountId !== 'string' || !/^\d{1,64}$/.test(accountId)) throw invalid(`${field} is required: the numeric id Meta gives the account`);
  const token = input.page_access_token;
  if (typeof token !== 'string' || !/^[\x21-\x7e]{20,1000}$/.test(token)) {
    throw invalid('page_access_token is required: the page access token (20 to 1000 printable characters)');
  }
  return { accountId, accessToken: token };
}
