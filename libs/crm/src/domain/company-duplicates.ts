// Likely-duplicate detection for companies: pure rules, unit-tested without a database.

export interface CompanyKeys {
  id: string;
  name: string;
  website: string;
  phones: string[];
  emails: string[];
}

export interface DuplicateGroup {
  company_ids: string[];
  score: number;
  reasons: string[];
}

const LEGAL_WORDS = new Set([
  'inc',
  'incorporated',
  'ltd',
  'limited',
  'llc',
  'co',
  'corp',
  'corporation',
  'company',
  'gmbh',
  'sa',
  'sarl',
  'plc',
  'ag',
  'bv',
  'the',
  'sae',
  'llp',
]);
const FREE_MAIL = new Set([
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'icloud.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'mail.com',
]);

// How strongly each shared key suggests the same company.
const WEIGHT = { website: 0.9, phone: 0.8, email: 0.7, name: 0.6 } as const;
const LABEL: Record<keyof typeof WEIGHT, string> = { website: 'website domain', phone: 'phone', email: 'email domain', name: 'normalised name' };

export function normalizeCompanyName(name: string): string {
  const words = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((word) => word !== '' && !LEGAL_WORDS.has(word));
  return words.join(' ');
}

export function websiteDomain(website: string): string {
  const trimmed = website.trim().toLowerCase();
  if (trimmed === '') return '';
  const host = trimmed.replace(/^[a-z]+:\/\//, '').split(/[/?#:]/)[0];
  return host.replace(/^www\./, '');
}

export function emailDomain(email: string): string {
  const domain = email.trim().toLowerCase().split('@')[1] ?? '';
  return FREE_MAIL.has(domain) ? '' : domain;
}

// The keys a company can share with another ("kind:value", each once): its normalised name, its
// website domain, each phone and each non-free-mail email domain.
export function duplicateKeys(company: CompanyKeys): string[] {
  const keys: [keyof typeof WEIGHT, string][] = [
    ['name', normalizeCompanyName(company.name)],
    ['website', websiteDomain(company.website)],
    ...company.phones.map((phone): [keyof typeof WEIGHT, string] => ['phone', phone]),
    ...company.emails.map((email): [keyof typeof WEIGHT, string] => ['email', emailDomain(email)]),
  ];
  return [...new Set(keys.filter(([, value]) => value !== '').map(([kind, value]) => `${kind}:${value}`))];
}

export function findDuplicateGroups(companies: CompanyKeys[]): DuplicateGroup[] {
  const byKey = new Map<string, string[]>();
  for (const company of companies) {
    for (const key of duplicateKeys(company)) {
      const holders = byKey.get(key);
      if (holders) holders.push(company.id);
      else byKey.set(key, [company.id]);
    }
  }
  return groupsFromSharedKeys([...byKey].filter(([, ids]) => new Set(ids).size > 1));
}

// Union-find over the keys held by two or more companies (each with its holders): companies
// sharing any key end in one group; the score combines the kinds of evidence found
// (1 - product of (1 - weight)).
export function groupsFromSharedKeys(shared: [string, string[]][]): DuplicateGroup[] {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    const p = parent.get(id) ?? id;
    if (p === id) return id;
    const root = find(p);
    parent.set(id, root);
    return root;
  };
  for (const [, ids] of shared) for (const id of ids.slice(1)) parent.set(find(id), find(ids[0]));
  const groups = new Map<string, Set<string>>();
  for (const [, ids] of shared) {
    for (const id of ids) {
      const root = find(id);
      groups.set(root, (groups.get(root) ?? new Set()).add(id));
    }
  }
  // Each shared key belongs to exactly one group: bucket them once (linear, not groups x keys).
  const keysByRoot = new Map<string, string[]>();
  for (const [key, ids] of shared) {
    const root = find(ids[0]);
    const keys = keysByRoot.get(root);
    if (keys) keys.push(key);
    else keysByRoot.set(root, [key]);
  }
  const result: DuplicateGroup[] = [];
  for (const [root, members] of groups) {
    if (members.size < 2) continue;
    const reasons: string[] = [];
    const kinds = new Set<keyof typeof WEIGHT>();
    for (const key of keysByRoot.get(root) ?? []) {
      const kind = key.slice(0, key.indexOf(':')) as keyof typeof WEIGHT;
      kinds.add(kind);
      reasons.push(`same ${LABEL[kind]} ${key.slice(key.indexOf(':') + 1)}`);
    }
    const score = 1 - [...kinds].reduce((rest, kind) => rest * (1 - WEIGHT[kind]), 1);
    result.push({ company_ids: [...members].sort(), score: Math.round(score * 100) / 100, reasons: reasons.sort() });
  }
  return result.sort((a, b) => b.score - a.score || a.company_ids[0].localeCompare(b.company_ids[0]));
}
