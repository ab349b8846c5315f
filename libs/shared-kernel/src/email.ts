// The one email rule of the service (accounts, invitations, contacts, companies): something@domain.tld
// without whitespace, at most 320 characters. Deliverability is the mail server's business, not a
// regular expression's. Where an address is an identifier (accounts), control characters are refused
// as well (hasControlCharacter); a contact's list keeps what the database accepts.
export const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const EMAIL_MAX_LENGTH = 320;

export const isEmailAddress = (value: string): boolean => value.length <= EMAIL_MAX_LENGTH && EMAIL_ADDRESS.test(value);

// C0 and C1 control characters (NUL among them: PostgreSQL's text cannot hold it).
export const hasControlCharacter = (value: string): boolean => /\p{Cc}/u.test(value);
