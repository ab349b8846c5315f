import { json, viewSchema } from '@engage/platform';
import { CONTACTS } from '../domain/contact';

const { uuid, text, integer, arrayOf, object, nullable, extend } = json;

// §4.4 GET /contacts: a page of contact summaries.
const SUMMARY = viewSchema(CONTACTS, ['id', 'first_name', 'last_name', 'phones', 'emails', 'tags', 'company_id', 'created_at', 'updated_at']);
export const CONTACT_PAGE = object({ contacts: arrayOf(SUMMARY), total: integer, page: integer, limit: integer, total_pages: integer });

// §4.4 GET /contacts/:id: the full contact with its company ({id, name}, or null).
export const CONTACT_WITH_COMPANY = extend(viewSchema(CONTACTS), { company: nullable(object({ id: uuid, name: text })) });
