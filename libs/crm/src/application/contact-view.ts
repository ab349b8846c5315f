import { toView, type ViewOf } from '@engage/shared-kernel';
import { CONTACTS, type ContactRow } from '../domain/contact';

// A contact as the API returns it (§2): its served columns as declared, timestamps in ISO 8601.
export type ContactView = ViewOf<typeof CONTACTS>;

export const toContactView = (row: ContactRow): ContactView => toView(CONTACTS, row);
