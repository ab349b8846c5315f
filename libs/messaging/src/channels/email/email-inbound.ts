import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactByEmail } from '@engage/crm';
import { answeredIds, THREAD_SUBJECT_WINDOW_MS, threadSubject } from './email-threading';
import { CONVERSATION_BY_MESSAGE_IDS, CONVERSATION_BY_SUBJECT, EMAIL_SEEN, INSERT_EMAIL_MESSAGE, REOPEN_CONVERSATION, SET_EMAIL_SUBJECT } from './email.sql';
import { type ConversationRow, type MessageRow, SET_CONVERSATION_STATUS, TOUCH_CONVERSATION } from '../../infrastructure/messaging.sql';
import { CHANNEL_CONTACT, INSERT_CHANNEL_CONTACT, MOVE_WINDOW } from '../meta/social.sql';
import { upsertConversation } from '../../conversations/conversation-store';
import { CONVERSATION_STATUS_CHANGED, conversationEvent, MESSAGE_RECEIVED, messageEvent } from '../../application/messaging-events';
import { toConversationView, toMessageView } from '../../application/views';

// One mail as the mailbox reader hands it over: parsed, its HTML sanitised, its attachments re-hosted.
export interface IncomingEmail {
  // The de-duplication key (external_id): the Message-ID (hashed when longer than 200 characters),
  // else the mailbox's UIDVALIDITY and UID.
  key: string;
  messageId: string | null;
  from: { address: string; name: string | null };
  to: string[];
  cc: string[];
  subject: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  text: string;
  html: string | null;
  media: Array<{ url: string | null; kind: string; filename: string | null; content_type: string; rehost_error?: string }>;
}

export type EmailOutcome = 'stored' | 'duplicate' | 'no_sender';

// The email channel's half of inbound processing, in the reader's tenant transaction: the sender
// found or created as a contact by address, the mail threaded into its conversation, stored as an
// INBOUND message with message.received, as every channel does.
export class EmailInbound {
  constructor(
    private readonly contacts: ContactService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async store(tx: Tx, ctx: RequestContext, channelId: string, mail: IncomingEmail): Promise<EmailOutcome> {
    const [seen] = await tx.query(EMAIL_SEEN, [channelId, mail.key, mail.messageId]);
    if (seen) return 'duplicate';
    if (!mail.from.address) return 'no_sender';
    const contactId = await this.contactOf(tx, ctx, channelId, mail.from);
    let conversation = await this.threadOf(tx, ctx, channelId, contactId, mail);
    if (conversation.status === 'SNOOZED' || conversation.status === 'PENDING') {
      const from = conversation.status;
      [conversation] = await tx.query<ConversationRow>(SET_CONVERSATION_STATUS, [conversation.id, 'OPEN', null]);
      await tx.emit([conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, toConversationView(conversation), { from_status: from, to_status: 'OPEN' })]);
    }
    const subject = threadSubject(mail.subject);
    if (subject) await tx.query(SET_EMAIL_SUBJECT, [conversation.id, subject]);
    const now = this.now();
    const wrote = mail.date && mail.date < now ? mail.date : now;
    await tx.query(MOVE_WINDOW, [conversation.id, wrote, null]);
    const metadata = {
      sender_name: mail.from.name,
      email: {
        from: mail.from.address,
        to: mail.to,
        cc: mail.cc,
        subject: mail.subject,
        in_reply_to: mail.inReplyTo,
        references: mail.references,
        date: mail.date?.toISOString() ?? null,
        html: mail.html,
      },
    };
    const [row] = await tx.query<MessageRow>(INSERT_EMAIL_MESSAGE, [
      conversation.id,
      contactId,
      channelId,
      mail.text,
      JSON.stringify(mail.media),
      mail.key,
      JSON.stringify(metadata),
      mail.messageId,
    ]);
    if (!row) return 'duplicate';
    await tx.emit([messageEvent(MESSAGE_RECEIVED, ctx, toMessageView(row), { contact_id: contactId })]);
    return 'stored';
  }

  // By the ids it answers; else by subject and sender within the window; else the contact's
  // unresolved conversation on the channel (one per contact and channel), created when missing.
  private async threadOf(tx: Tx, ctx: RequestContext, channelId: string, contactId: string, mail: IncomingEmail): Promise<ConversationRow> {
    const ids = answeredIds(mail.inReplyTo, mail.references);
    let [found] = ids.length > 0 ? await tx.query<ConversationRow>(CONVERSATION_BY_MESSAGE_IDS, [channelId, ids]) : [];
    const subject = threadSubject(mail.subject);
    if (!found && subject) {
      const since = new Date(this.now().getTime() - THREAD_SUBJECT_WINDOW_MS);
      [found] = await tx.query<ConversationRow>(CONVERSATION_BY_SUBJECT, [channelId, contactId, subject, since]);
    }
    if (found?.status === 'RESOLVED') {
      const [reopened] = await tx.query<ConversationRow>(REOPEN_CONVERSATION, [found.id]);
      if (reopened) {
        await tx.emit([conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, toConversationView(reopened), { from_status: 'RESOLVED', to_status: 'OPEN' })]);
      }
      found = reopened;
    }
    if (found) {
      const [touched] = await tx.query<ConversationRow>(TOUCH_CONVERSATION, [found.id, 1]);
      return touched;
    }
    return upsertConversation(tx, ctx, contactId, channelId, 1);
  }

  // The address as the channel's customer id; a sender first seen is looked up (or created) in the CRM by address.
  private async contactOf(tx: Tx, ctx: RequestContext, channelId: string, from: IncomingEmail['from']): Promise<string> {
    const [known] = await tx.query<{ contact_id: string }>(CHANNEL_CONTACT, [channelId, from.address]);
    if (known) return known.contact_id;
    const { contact } = await findOrCreateContactByEmail(tx, ctx, this.contacts, from.address, from.name);
    const [mapped] = await tx.query<{ contact_id: string }>(INSERT_CHANNEL_CONTACT, [channelId, from.address, contact.id]);
    if (mapped) return mapped.contact_id;
    const [winner] = await tx.query<{ contact_id: string }>(CHANNEL_CONTACT, [channelId, from.address]);
    return winner.contact_id;
  }
}
