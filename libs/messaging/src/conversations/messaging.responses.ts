import { json, viewSchema } from '@engage/platform';
import { CHANNEL_ACCOUNTS, CONVERSATIONS, MESSAGES } from '../infrastructure/exposed-tables';

const { uuid, text, integer, boolean, arrayOf, object, extend, oneOfValues } = json;

// Records as views.ts makes them: every served column of the table.
export const CHANNEL_ACCOUNT = viewSchema(CHANNEL_ACCOUNTS);
export const CONVERSATION = viewSchema(CONVERSATIONS);
export const CONVERSATION_WITH_MESSAGES = extend(CONVERSATION, { messages: arrayOf(viewSchema(MESSAGES)) });

export const CONVERSATION_PAGE = object({ conversations: arrayOf(CONVERSATION), total: integer, page: integer, limit: integer, total_pages: integer });
export const UNREAD_COUNTS = object({ total: integer, conversations: integer, by_status: { type: 'object', additionalProperties: integer } });

// §4.1: what a send (or an inbox reply) answers; `result` is the provider's own answer, passed through.
export const SEND_OUTCOME = object({
  success: oneOfValues([true]),
  result: { type: 'object' },
  conversationId: uuid,
  contactId: uuid,
  debug: object({ hasChannelAccount: boolean, hasConversationId: boolean, hasContactId: boolean }),
});

// The inbound token is shown once, when made or rotated; Meta channels have none (Meta signs its requests).
// Email channels have no inbound path (their mailbox is read) and show their settings without passwords.
const ENDPOINT = object({ host: text, port: integer, secure: boolean, user: text, tls_ca: text }, ['tls_ca']);
const EMAIL_SETTINGS = object({ address: text, imap: ENDPOINT, smtp: ENDPOINT });
export const CHANNEL_WITH_TOKEN = object({ channel_account: CHANNEL_ACCOUNT, inbound_token: text, inbound_path: text, email: EMAIL_SETTINGS }, [
  'inbound_token',
  'inbound_path',
  'email',
]);
export const CHANNEL_CHECK = object({ ok: boolean, error: text }, ['error']);

// The receivers acknowledge at once: the chat app's with the stored event's id (a bigint, as text), Meta's with how many were stored.
export const INBOUND_RECEIVED = object({ received: oneOfValues([true]), id: { type: 'string', pattern: '^[0-9]+$' } });
export const META_RECEIVED = object({ received: oneOfValues([true]), stored: integer });

// The SMS provider's callback parameters (form-encoded): an inbound message, or a status callback.
export const SMS_CALLBACK_FORM = object(
  {
    MessageSid: text,
    AccountSid: text,
    From: text,
    To: text,
    Body: text,
    NumMedia: text,
    MessageStatus: text,
    ErrorCode: text,
  },
  ['AccountSid', 'From', 'To', 'Body', 'NumMedia', 'MessageStatus', 'ErrorCode'],
);
