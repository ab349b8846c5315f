import { randomUUID } from 'node:crypto';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { isCountryCode, toE164 } from '../domain/phone';
import { CONTACT_BY_EMAIL, CONTACT_BY_PHONE, CONTACTS_BY_PHONES, ORGANIZATION_COUNTRY, type ContactRow } from '../infrastructure/contact.sql';
import { toContactView, type ContactView } from './contact-view';
import { ContactService } from './contact.service';

// Race-free find-or-create by phone inside the caller's tenant transaction (the send path and the
// inbound worker). Creation runs in a savepoint: when a concurrent transaction claimed the phone
// first, the savepoint is rolled back and the (now committed) contact is read instead.
export async function findOrCreateContactByPhone(
  tx: Tx,
  ctx: RequestContext,
  contacts: ContactService,
  raw: string,
  name: string | null,
): Promise<{ contact: ContactView; created: boolean }> {
  const [org] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY, [], { prepare: true });
  const phone = toE164(raw, isCountryCode(org?.country) ? org.country : undefined);
  if (!phone) throw invalidPhone(raw);
  const existing = await byPhone(tx, phone);
  if (existing) return { contact: existing, created: false };
  return createByPhone(tx, ctx, contacts, phone, name);
}

// Creation in a savepoint; a concurrent transaction that claimed the phone first wins.
async function createByPhone(
  tx: Tx,
  ctx: RequestContext,
  contacts: ContactService,
  phone: string,
  name: string | null,
): Promise<{ contact: ContactView; created: boolean }> {
  const savepoint = `contact_${randomUUID().replace(/-/g, '')}`;
  await tx.query(`SAVEPOINT ${savepoint}`);
  try {
    const contact = await contacts.createIn(tx, ctx, { first_name: name ?? 'Unknown Contact', phones: [phone] });
    await tx.query(`RELEASE SAVEPOINT ${savepoint}`);
    return { contact, created: true };
  } catch (error) {
    if ((error as DomainError).code !== 'contact.duplicate_phone') throw error;
    await tx.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    const winner = await byPhone(tx, phone);
    if (!winner) throw error;
    return { contact: winner, created: false };
  }
}

const invalidPhone = (raw: string) =>
  new DomainError('validation', 'contact.invalid_phone', `"${raw.slice(0, 40)}" is not a valid phone number`, { phone: raw.slice(0, 40) });

async function byPhone(tx: Tx, phone: string): Promise<ContactView | undefined> {
  const [row] = await tx.query<ContactRow>(CONTACT_BY_PHONE, [phone], { prepare: true });
  return row ? toContactView(row) : undefined;
}

// The same for many senders at once (the inbound worker's batches): one lookup for all phones, and
// a creation only for the phones no contact has yet. Answers in the order asked; an
// entry that is not a valid phone gets the error instead of failing the others.
export async function findOrCreateContactsByPhones(
  tx: Tx,
  ctx: RequestContext,
  contacts: ContactService,
  wanted: Array<{ raw: string; name: string | null }>,
): Promise<Array<{ contact: ContactView; created: boolean } | { error: DomainError }>> {
  const [org] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY, [], { prepare: true });
  const country = isCountryCode(org?.country) ? org.country : undefined;
  const phones = wanted.map(({ raw }) => toE164(raw, country));
  const valid = [...new Set(phones.filter((p): p is string => p !== null))];
  const rows = valid.length === 0 ? [] : await tx.query<ContactRow & { matched_phone: string }>(CONTACTS_BY_PHONES, [valid], { prepare: true });
  const known = new Map<string, { contact: ContactView; created: boolean }>(
    rows.map((row) => [row.matched_phone, { contact: toContactView(row), created: false }]),
  );
  const answers: Array<{ contact: ContactView; created: boolean } | { error: DomainError }> = [];
  for (const [i, phone] of phones.entries()) {
    const { raw, name } = wanted[i];
    if (!phone) {
      answers.push({ error: invalidPhone(raw) });
      continue;
    }
    let found = known.get(phone);
    if (!found) {
      // Created once: a later entry with the same phone finds it as existing.
      found = await createByPhone(tx, ctx, contacts, phone, name);
      known.set(phone, { contact: found.contact, created: false });
    }
    answers.push(found);
  }
  return answers;
}

// Find-or-create by email address (the email channel's senders), inside the caller's tenant
// transaction. Addresses are not unique among contacts, so creations of one address are serialized
// by a transaction-scoped advisory lock instead of a unique key: the second finds the first's contact.
export async function findOrCreateContactByEmail(
  tx: Tx,
  ctx: RequestContext,
  contacts: ContactService,
  address: string,
  name: string | null,
): Promise<{ contact: ContactView; created: boolean }> {
  const email = address.toLowerCase();
  const [existing] = await tx.query<ContactRow>(CONTACT_BY_EMAIL, [email]);
  if (existing) return { contact: toContactView(existing), created: false };
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('contact-email:' || app_org_id()::text || ':' || $1, 0))`, [email]);
  const [winner] = await tx.query<ContactRow>(CONTACT_BY_EMAIL, [email]);
  if (winner) return { contact: toContactView(winner), created: false };
  const contact = await contacts.createIn(tx, ctx, { first_name: name?.trim().slice(0, 100) || 'Unknown Contact', emails: [email] });
  return { contact, created: true };
}
