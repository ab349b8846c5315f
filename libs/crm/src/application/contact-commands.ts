import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Database } from '@engage/platform';
import { type EventCause, NotFound, type RequestContext } from '@engage/shared-kernel';
import { ActivityRecordService, type NoteView } from './activity-records.service';
import { ContactService } from './contact.service';
import type { ContactView } from './contact-view';

// Commands other contexts send to change CRM records (automation's actions), on @nestjs/cqrs's
// command bus. Each takes the caller's context and, for a rule's action, the cause its events carry
// (the loop guard). A change that changes nothing writes nothing and emits no event.

export interface ContactChange {
  contact: ContactView;
  changed: boolean;
}

export class ChangeContactTags extends Command<ContactChange> {
  constructor(
    readonly ctx: RequestContext,
    readonly contactId: string,
    readonly add: readonly string[],
    readonly remove: readonly string[],
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// `field`: a contact column (first_name, last_name, source, description, opt_in_status,
// company_id, assignee_id) or `custom_fields.<key>` (null removes the key).
export class SetContactField extends Command<ContactChange> {
  constructor(
    readonly ctx: RequestContext,
    readonly contactId: string,
    readonly field: string,
    readonly value: unknown,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// A note on a deal or a contact (at least one of them).
export class AddNote extends Command<NoteView> {
  constructor(
    readonly ctx: RequestContext,
    readonly on: { contact_id?: string; deal_id?: string },
    readonly body: string,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

const CUSTOM = 'custom_fields.';
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

@CommandHandler(ChangeContactTags)
export class ChangeContactTagsHandler implements ICommandHandler<ChangeContactTags, ContactChange> {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
  ) {}

  execute({ ctx, contactId, add, remove, cause }: ChangeContactTags): Promise<ContactChange> {
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await this.contacts.lockIn(tx, contactId);
        if (!current) throw NotFound('contact', contactId);
        const removed = new Set(remove.map((tag) => tag.toLowerCase()));
        const kept = current.tags.filter((tag) => !removed.has(tag.toLowerCase()));
        const known = new Set(kept.map((tag) => tag.toLowerCase()));
        const tags = [...kept, ...add.filter((tag) => !known.has(tag.toLowerCase()) && !removed.has(tag.toLowerCase()))];
        if (same(tags, current.tags)) return { contact: current, changed: false };
        return { contact: await this.contacts.updateIn(tx, ctx, contactId, { tags }), changed: true };
      },
      { cause },
    );
  }
}

@CommandHandler(SetContactField)
export class SetContactFieldHandler implements ICommandHandler<SetContactField, ContactChange> {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
  ) {}

  execute({ ctx, contactId, field, value, cause }: SetContactField): Promise<ContactChange> {
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await this.contacts.lockIn(tx, contactId);
        if (!current) throw NotFound('contact', contactId);
        let change: Record<string, unknown>;
        if (field.startsWith(CUSTOM)) {
          const key = field.slice(CUSTOM.length);
          const fields = { ...(current.custom_fields as Record<string, unknown>) };
          if (same(fields[key], value)) return { contact: current, changed: false };
          if (value === null) delete fields[key];
          else fields[key] = value;
          change = { custom_fields: fields };
        } else {
          if (same((current as Record<string, unknown>)[field], value)) return { contact: current, changed: false };
          change = { [field]: value };
        }
        return { contact: await this.contacts.updateIn(tx, ctx, contactId, change), changed: true };
      },
      { cause },
    );
  }
}

@CommandHandler(AddNote)
export class AddNoteHandler implements ICommandHandler<AddNote, NoteView> {
  constructor(
    private readonly db: Database,
    private readonly activity: ActivityRecordService,
  ) {}

  execute({ ctx, on, body, cause }: AddNote): Promise<NoteView> {
    return this.db.inTenant(ctx, (tx) => this.activity.createNoteIn(tx, ctx, { ...on, body }), { cause });
  }
}

export const CRM_COMMAND_HANDLERS = [ChangeContactTagsHandler, SetContactFieldHandler, AddNoteHandler];
