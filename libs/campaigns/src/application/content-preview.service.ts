import type { Database } from '@engage/platform';
import { isUuid, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { isPlainObject, parseText, renderFor } from '../domain/content';
import { smsSize } from '../domain/sms-encoding';
import { CONTACT_BY_ID } from '../infrastructure/campaigns.sql';
import { broadcastAccount } from './channel-accounts';
import type { Tables } from './data-api-tables';

// POST /functions/v1/campaigns/content/preview {channel_account_id, text, contact_id?}: the text as
// the contact would get it (without a contact, every field takes its fallback), and for an SMS
// account how it travels (encoding and parts).
export class ContentPreviewService {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
  ) {}

  async preview(ctx: RequestContext, body: unknown) {
    if (!isPlainObject(body)) throw ValidationFailed('campaigns.invalid_content', 'body: must be an object {channel_account_id, text, contact_id?}');
    const extra = Object.keys(body).find((key) => !['channel_account_id', 'text', 'contact_id'].includes(key));
    if (extra !== undefined) throw ValidationFailed('campaigns.unknown_field', `${extra.slice(0, 64)}: unknown field`, { path: extra.slice(0, 64) });
    if (body.contact_id !== undefined && body.contact_id !== null && !isUuid(body.contact_id)) {
      throw ValidationFailed('campaigns.invalid_contact_id', 'contact_id: must be a UUID', { path: 'contact_id' });
    }
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const account = await broadcastAccount(tx, ctx, this.tables, body.channel_account_id);
        const text = parseText(body.text, 'text', account.kind);
        let contact: Record<string, unknown> | null = null;
        if (typeof body.contact_id === 'string') {
          [contact] = await tx.query<Record<string, unknown>>(CONTACT_BY_ID, [body.contact_id]);
          if (!contact) throw NotFound('contact', body.contact_id);
        }
        const rendered = renderFor(text, contact);
        if (account.kind !== 'sms') return { text: rendered };
        const size = smsSize(rendered);
        return { text: rendered, encoding: size.encoding, segments: size.segments };
      },
      { readOnly: true },
    );
  }
}
