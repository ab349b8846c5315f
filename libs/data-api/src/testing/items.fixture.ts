import type { PlatformRuntime } from '@engage/platform';

// The fixture tenant table of the read tests, with row-level security as a context migration adds it.
export const CREATE_ITEMS = `
  CREATE TABLE dataapi_items (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), organization_id uuid NOT NULL REFERENCES organizations(id),
    name text NOT NULL, qty int, price numeric, tags text[] NOT NULL DEFAULT '{}', meta jsonb NOT NULL DEFAULT '{}',
    active bool, body text, created_at timestamptz NOT NULL DEFAULT now());
  SELECT enable_tenant_rls('dataapi_items');`;

interface Item {
  id: string;
  name: string;
  qty: number | null;
  price: string | null;
  tags: string[];
  meta: Record<string, unknown>;
  active: boolean | null;
  body: string | null;
  created_at: string;
}

const id = (n: number, org: 'a' | 'b') => `00000000-0000-4000-8000-0000000000${org === 'a' ? 'a' : 'b'}${n}`;

export const ITEMS_A: Item[] = [
  {
    id: id(1, 'a'),
    name: 'Apple',
    qty: 5,
    price: '1.50',
    tags: ['fruit', 'red'],
    meta: { color: 'red', size: 3 },
    active: true,
    body: 'The fat cat sat on the mat',
    created_at: '2024-01-01T00:00:00+00:00',
  },
  {
    id: id(2, 'a'),
    name: 'Banana',
    qty: 12,
    price: '0.25',
    tags: ['fruit', 'yellow long'],
    meta: { color: 'yellow', size: 5 },
    active: false,
    body: 'A rat ate the cheese',
    created_at: '2024-01-02T00:00:00+00:00',
  },
  {
    id: id(3, 'a'),
    name: 'Cherry',
    qty: null,
    price: '10',
    tags: ['fruit', 'red', 'small'],
    meta: { color: 'red' },
    active: null,
    body: null,
    created_at: '2024-01-03T00:00:00+00:00',
  },
  { id: id(4, 'a'), name: 'Date', qty: 0, price: null, tags: [], meta: {}, active: true, body: 'fat rats and cats', created_at: '2024-01-04T00:00:00+00:00' },
  {
    id: id(5, 'a'),
    name: 'eggplant',
    qty: 7,
    price: '2.5',
    tags: ['vegetable', 'purple'],
    meta: { color: 'purple', size: 7 },
    active: false,
    body: 'Purple vegetables',
    created_at: '2024-01-05T00:00:00+00:00',
  },
  {
    id: id(6, 'a'),
    name: 'Fig',
    qty: 3,
    price: '3',
    tags: ['+201001234567'],
    meta: { size: 1 },
    active: true,
    body: 'the cat',
    created_at: '2024-01-06T00:00:00+00:00',
  },
];

// Organization B shares a name with A on purpose: A must never see it.
export const ITEMS_B: Item[] = [
  {
    id: id(1, 'b'),
    name: 'Apple',
    qty: 99,
    price: '9',
    tags: ['fruit', 'red'],
    meta: { color: 'red' },
    active: true,
    body: 'fat cat',
    created_at: '2024-02-01T00:00:00+00:00',
  },
  { id: id(2, 'b'), name: 'Zucchini', qty: 1, price: '1', tags: ['vegetable'], meta: {}, active: false, body: null, created_at: '2024-02-02T00:00:00+00:00' },
];

export async function seedItems(runtime: PlatformRuntime, organizationId: string, items: Item[]): Promise<void> {
  await runtime.db.asSystem(async (tx) => {
    for (const item of items) {
      await tx.query(
        `INSERT INTO dataapi_items (id, organization_id, name, qty, price, tags, meta, active, body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [item.id, organizationId, item.name, item.qty, item.price, item.tags, JSON.stringify(item.meta), item.active, item.body, item.created_at],
      );
    }
  });
}
