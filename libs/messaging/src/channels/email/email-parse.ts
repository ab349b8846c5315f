import { createHash } from 'node:crypto';
import { convert } from 'html-to-text';
import { type AddressObject, simpleParser } from 'mailparser';
import sanitizeHtml from 'sanitize-html';
import type { IncomingEmail } from './email-inbound';
import { messageIds } from './email-threading';

const MAX_TEXT = 100_000;
const MAX_HTML = 200_000;
export const MAX_ATTACHMENTS = 20;
export const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024;

export interface RawAttachment {
  bytes: Buffer;
  contentType: string;
  filename: string | null;
}

// A mail's source parsed (mailparser: MIME, encodings, charsets), its text part, or text made from
// the sanitised HTML by html-to-text when it has none, and its HTML sanitised (sanitize-html's default allow-list: no
// scripts, styles, event handlers or javascript: links; cid: images kept as references).
export async function parseEmail(source: Buffer, fallbackKey: string): Promise<{ mail: Omit<IncomingEmail, 'media'>; attachments: RawAttachment[] }> {
  const parsed = await simpleParser(source, { skipImageLinks: true, maxHtmlLengthToParse: 5 * MAX_HTML });
  const [messageId] = messageIds(parsed.messageId);
  const from = parsed.from?.value[0];
  const html = typeof parsed.html === 'string' ? sanitizeHtml(parsed.html, { allowedSchemes: ['http', 'https', 'mailto', 'cid'] }).slice(0, MAX_HTML) : null;
  const plain = parsed.text?.trim() || (html ? convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] }) : '');
  const text = plain.replace(/\0/g, '').trim().slice(0, MAX_TEXT);
  const attachments = parsed.attachments
    .filter((a) => a.size <= MAX_ATTACHMENT_BYTES)
    .slice(0, MAX_ATTACHMENTS)
    .map((a) => ({ bytes: a.content, contentType: a.contentType || 'application/octet-stream', filename: a.filename?.slice(0, 255) ?? null }));
  return {
    mail: {
      key: messageId ? (messageId.length <= 200 ? messageId : `sha256:${createHash('sha256').update(messageId).digest('hex')}`) : fallbackKey,
      messageId: messageId ?? null,
      from: { address: from?.address?.toLowerCase().slice(0, 320) ?? '', name: from?.name ? from.name.slice(0, 200) : null },
      to: addresses(parsed.to),
      cc: addresses(parsed.cc),
      subject: parsed.subject?.replace(/\0/g, '').slice(0, 998) ?? null,
      inReplyTo: messageIds(parsed.inReplyTo)[0] ?? null,
      references: messageIds(parsed.references),
      date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date : null,
      text,
      html: html?.replace(/\0/g, '') ?? null,
    },
    attachments,
  };
}

const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((o) => o.value.map((v) => v.address?.toLowerCase() ?? ''))
    .filter(Boolean)
    .slice(0, 50);

export function mediaKindOf(contentType: string): 'image' | 'video' | 'audio' | 'document' {
  const top = contentType.split('/')[0].toLowerCase();
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'document';
}
