import { json, viewSchema } from '@engage/platform';
import { COMPANIES } from '../domain/company';

const { uuid, text, integer, number, arrayOf, object, extend } = json;

const COMPANY = viewSchema(COMPANIES);

// Best matches first; score ranks how the term matched (name, website, industry, emails, phones).
export const COMPANY_SEARCH = object({ companies: arrayOf(extend(COMPANY, { score: integer })) });

const DUPLICATE_GROUPS = object({
  groups: arrayOf(object({ company_ids: arrayOf(uuid), score: number, reasons: arrayOf(text), companies: arrayOf(object({ id: uuid, name: text })) })),
});
const MERGED = object({ company: COMPANY, merged_company_ids: arrayOf(uuid), moved_contact_ids: arrayOf(uuid), moved_deal_ids: arrayOf(uuid) });

// Without a merge body: groups of likely duplicates; with one: what the merge did.
export const DUPLICATES_OR_MERGE = { oneOf: [DUPLICATE_GROUPS, MERGED] };
