import { randomUUID } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js';
import { Conflict, DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type Database, type Tx, type ViolationMap } from '@engage/platform';
import { CONTACT_ASSIGNED, CONTACT_CREATED, CONTACT_UPDATED, contactEvent } from './crm-events';
import { CONTACT_FIELDS, type ContactFields, parseContactFields, parseNewContact } from '../domain/contact';
import { isCountryCode, toE164 } from '../domain/phone';
import {
  CLAIM_PHONES,
  CONTACT_BY_PHONE,
  CONTACT_FOR_UPDATE,
  CONTACT_WITH_COMPANY,
  CONTACT_WRITE,
  type ContactRow,
  CONTACTS_FOR_UPDATE,
  INSERT_CONTACT,
  INSERT_CONTACTS,
  LIST_CONTACTS,
  ORGANIZATION_COUNTRY,
  RELEASE_PHONES,
  UPDATE_CONTACT,
  UPDATE_CONTACTS,
} from '../infrastructure/contact.sql';
import { type ContactView, toContactView } from './contact-view';

export interface ContactPage {
  contacts: Pick<ContactView, 'id' | 'first_name' | 'last_name' | 'phones' | 'emails' | 'tags' | 'company_id' | 'created_at' | 'updated_at'>[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
}

const PHONE_LIKE = /^[+\d\s\-().]+(@s\..+)?$/;

// Contacts: create, update, read, list and phone lookup. Changes emit contact.* events through the outbox.
export class ContactService {
  constructor(private readonly db: Database) {}

  create(ctx: RequestContext, input: Record<string, unknown>): Promise<ContactView> {
    return this.db.inTenant(ctx, (tx) => this.createIn(tx, ctx, input));
  }

  update(ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<ContactView> {
    return this.db.inTenant(ctx, (tx) => this.updateIn(tx, ctx, id, input));
  }

  // The same operations inside an open tenant transaction (the data API's writes use these).
  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>): Promise<ContactView> {
    const fields = parseNewContact(input, await countryOf(tx));
    const [row] = await insertOrConflict(tx, fields);
    await claimPhones(tx, row.id, fields.phones);
    const view = toContactView(row);
    const events = [contactEvent(CONTACT_CREATED, ctx, view)];
    if (view.assignee_id) events.push(contactEvent(CONTACT_ASSIGNED, ctx, view));
    await tx.emit(events);
    return view;
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<ContactView> {
    assertId(id);
    const changes = parseContactFields(input, await countryOf(tx));
    const [current] = await tx.query<ContactRow>(CONTACT_FOR_UPDATE, [id]);
    if (!current) throw NotFound('contact', id);
    const next: ContactFields = { ...pickFields(current), ...changes };
    const [row] = await tx.query<ContactRow>(UPDATE_CONTACT, [id, ...CONTACT_WRITE.values(next)], { violations: CONTACT_LINKS });
    if (changes.phones) {
      await tx.query(RELEASE_PHONES, [id]);
      await claimPhones(tx, id, changes.phones);
    }
    const view = toContactView(row);
    const events = [contactEvent(CONTACT_UPDATED, ctx, view)];
    if ('assignee_id' in changes && changes.assignee_id !== current.assignee_id) events.push(contactEvent(CONTACT_ASSIGNED, ctx, view));
    await tx.emit(events);
    return view;
  }

  // Many contacts at once (the CSV import): new ones inserted and existing ones updated with
  // set-based statements, lists of the existing ones unioned rather than replaced, and every event
  // written to the outbox in one go. The caller has matched the rows (no phone shared between
  // them or with another contact); any database error fails the whole call.
  async importManyIn(
    tx: Tx,
    ctx: RequestContext,
    creates: ContactFields[],
    merges: { id: string; changes: Partial<ContactFields> }[],
  ): Promise<{ created: ContactView[]; updated: ContactView[] }> {
    const events = [];
    const created: ContactView[] = [];
    if (creates.length > 0) {
      const records = creates.map((fields) => ({ ...fields, id: randomUUID() }));
      for (const row of await tx.query<ContactRow>(INSERT_CONTACTS, [JSON.stringify(records)], { violations: CONTACT_LINKS })) {
        const view = toContactView(row);
        created.push(view);
        events.push(contactEvent(CONTACT_CREATED, ctx, view));
        if (view.assignee_id) events.push(contactEvent(CONTACT_ASSIGNED, ctx, view));
      }
    }
    const updated: ContactView[] = [];
    if (merges.length > 0) {
      const current = new Map((await tx.query<ContactRow>(CONTACTS_FOR_UPDATE, [merges.map((m) => m.id)])).map((row) => [row.id, row]));
      const records: (ContactFields & { id: string })[] = [];
      const gained: { phone: string; id: string }[] = [];
      const gainedEmails: { email: string; id: string }[] = [];
      for (const { id, changes } of merges) {
        const row = current.get(id);
        if (!row) throw NotFound('contact', id);
        const next = { ...pickFields(row), ...changes, id };
        if (changes.phones) next.phones = [...new Set([...row.phones, ...changes.phones])];
        if (changes.emails) next.emails = [...new Set([...row.emails, ...changes.emails])];
        if (changes.tags) next.tags = [...new Set([...row.tags, ...changes.tags])];
        for (const phone of next.phones) if (!row.phones.includes(phone)) gained.push({ phone, id });
        for (const email of next.emails) if (!row.emails.includes(email)) gainedEmails.push({ email, id });
        records.push(next);
      }
      const rows = await tx.query<ContactRow>(
        UPDATE_CONTACTS,
        [JSON.stringify(records), gained.map((g) => g.phone), gained.map((g) => g.id), gainedEmails.map((g) => g.email), gainedEmails.map((g) => g.id)],
        { violations: CONTACT_LINKS },
      );
      for (const row of rows) {
        const view = toContactView(row);
        updated.push(view);
        events.push(contactEvent(CONTACT_UPDATED, ctx, view));
        if (view.assignee_id !== current.get(row.id)!.assignee_id) events.push(contactEvent(CONTACT_ASSIGNED, ctx, view));
      }
    }
    await tx.emit(events);
    return { created, updated };
  }

  // The contact locked for update in an open tenant transaction, or null: for another context that
  // decides on the current values before updateIn (messaging's Meta profile job).
  async lockIn(tx: Tx, id: string): Promise<ContactView | null> {
    const [row] = await tx.query<ContactRow>(CONTACT_FOR_UPDATE, [id]);
    return row ? toContactView(row) : null;
  }

  async removeIn(tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    assertId(id);
    if ((await tx.execute('DELETE FROM contacts WHERE id = $1', [id])) === 0) throw NotFound('contact', id);
  }

  async get(ctx: RequestContext, id: string): Promise<ContactView & { company: { id: string; name: string } | null }> {
    assertId(id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ContactRow & { company: { id: string; name: string } | null }>(CONTACT_WITH_COMPANY, [id]));
    if (!row) throw NotFound('contact', id);
    return { ...toContactView(row), company: row.company };
  }

  // search matches the name, or a phone number in whatever form it was typed.
  async list(ctx: RequestContext, query: { page: number; limit: number; search?: string }): Promise<ContactPage> {
    return this.db.inTenant(ctx, async (tx) => {
      const term = query.search?.trim() ?? '';
      let namePattern: string | null = null;
      let phone: string | null = null;
      let digits: string | null = null;
      if (term !== '') {
        const phoneish = PHONE_LIKE.test(term) && term.replace(/\D/g, '').length >= 4;
        if (phoneish) {
          phone = toE164(term, await countryOf(tx)) ?? null;
          digits = term
            .replace(/@s\..*$/, '')
            .replace(/\D/g, '')
            .replace(/^0+/, '');
        } else {
          namePattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        }
      }
      const [result] = await tx.query<{ total: number; contacts: ContactPage['contacts'] }>(LIST_CONTACTS, [
        query.limit,
        (query.page - 1) * query.limit,
        namePattern,
        phone,
        digits,
      ]);
      return { contacts: result.contacts, total: result.total, page: query.page, limit: query.limit, total_pages: Math.ceil(result.total / query.limit) };
    });
  }

  async findByPhone(ctx: RequestContext, raw: string): Promise<ContactView | undefined> {
    return this.db.inTenant(ctx, async (tx) => {
      const phone = toE164(raw, await countryOf(tx));
      if (!phone) return undefined;
      const [row] = await tx.query<ContactRow>(CONTACT_BY_PHONE, [phone]);
      return row ? toContactView(row) : undefined;
    });
  }
}

async function countryOf(tx: Tx): Promise<CountryCode | undefined> {
  const [row] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
  return isCountryCode(row?.country) ? row.country : undefined;
}

function assertId(id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', 'contact.invalid_id', `contact id must be a UUID, got "${String(id).slice(0, 64)}"`);
}

async function insertOrConflict(tx: Tx, fields: ContactFields): Promise<ContactRow[]> {
  return tx.query<ContactRow>(INSERT_CONTACT, CONTACT_WRITE.values(fields), { violations: CONTACT_LINKS });
}

async function claimPhones(tx: Tx, contactId: string, phones: string[]): Promise<void> {
  if (phones.length === 0) return;
  const claimed = await tx.query<{ phone: string }>(CLAIM_PHONES, [phones, contactId]);
  const taken = phones.filter((phone) => !claimed.some((row) => row.phone === phone));
  if (taken.length > 0) throw Conflict('contact.duplicate_phone', `another contact already has the phone ${taken.join(', ')}`, { phones: taken });
}

// The composite keys name the field that points outside the organization.
const CONTACT_LINKS: ViolationMap = {
  contacts_company_fkey: () => NotFound('company'),
  contacts_assignee_fkey: () => new DomainError('validation', 'contact.invalid_assignee', 'assignee_id is not a member of this organization'),
};

const pickFields = (row: ContactRow): ContactFields => Object.fromEntries(CONTACT_FIELDS.map((name) => [name, row[name]])) as ContactFields;
