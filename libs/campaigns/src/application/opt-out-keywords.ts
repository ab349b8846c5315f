import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { SetContactField } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import { MESSAGE_RECEIVED } from '@engage/messaging';
import { consumeOnce, Database, EventSubscriptions } from '@engage/platform';
import { type DomainEvent, DomainError, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';
import { DEFAULT_OPT_IN_KEYWORDS, DEFAULT_OPT_OUT_KEYWORDS, KEYWORD_CHANNELS, keywordListOf, matchKeyword, mayBeKeyword } from '../domain/opt-out-keywords';
import { CONTACT_OPTED_IN, CONTACT_OPTED_OUT } from './campaigns-events';

export const OPT_OUT_CONSUMER = 'campaigns.opt-out-keywords';
export const OPT_OUT_EVENTS = [MESSAGE_RECEIVED];

// A customer's SMS or chat-app message that is an opt-out (or opt-in) keyword of the organization
// sets the contact's opt_in_status through the CRM's command, then campaigns publish
// contact.opted_out (or contact.opted_in): on the contact's timeline, and what sequences end
// enrolments on. Later broadcasts skip a contact whose opt_in_status is not true.
@Injectable()
export class OptOutKeywords implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly commands: CommandBus,
    private readonly settings: OrganizationSettings,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({ consumer: OPT_OUT_CONSUMER, sources: [MESSAGE_RECEIVED.source], handle: (event) => this.apply(event) });
  }

  async apply(event: DomainEvent): Promise<void> {
    if (event.type !== MESSAGE_RECEIVED.name || !isPayloadObject(event.payload)) return;
    const { message, channel_kind: channelKind } = event.payload;
    if (!isPayloadObject(message) || !(KEYWORD_CHANNELS as readonly unknown[]).includes(channelKind) || !mayBeKeyword(message.content)) return;
    const contactId = uuidOrNull(message.contact_id);
    if (!contactId) return;
    const [optOut, optIn] = await this.settings.plainMany(event.organizationId, ['opt_out_keywords', 'opt_in_keywords']);
    const match = matchKeyword(message.content, {
      optOut: keywordListOf(optOut, DEFAULT_OPT_OUT_KEYWORDS),
      optIn: keywordListOf(optIn, DEFAULT_OPT_IN_KEYWORDS),
    });
    if (!match) return;
    const ctx = { organizationId: event.organizationId, userId: null, role: 'SYSTEM' as const, requestId: event.id };
    try {
      // Setting the same value again (a redelivered event, a second STOP) changes nothing.
      await this.commands.execute(new SetContactField(ctx, contactId, 'opt_in_status', match.optInStatus));
    } catch (error) {
      // The contact was deleted since: nothing to opt out.
      if (error instanceof DomainError && error.kind === 'not_found') return;
      throw error;
    }
    const contract = match.optInStatus ? CONTACT_OPTED_IN : CONTACT_OPTED_OUT;
    await consumeOnce(this.db, OPT_OUT_CONSUMER, event, (tx) =>
      tx.emit([
        contract.create({
          organizationId: event.organizationId,
          aggregateId: contactId,
          payload: {
            contact_id: contactId,
            opt_in_status: match.optInStatus,
            keyword: match.keyword,
            channel_kind: channelKind as string,
            channel_account_id: String(message.channel_account_id),
            conversation_id: String(message.conversation_id),
            message_id: String(message.id),
          },
        }),
      ]),
    );
  }
}
