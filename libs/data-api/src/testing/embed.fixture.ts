import type { PlatformRuntime } from '@engage/platform';
import { defineRegistry } from '../registry';
import { ITEMS_A, ITEMS_B } from './items.fixture';
import { itemsRegistry } from './items.registry';

// Notes point at an item (twice: item_id and backup_item_id, for ambiguity) and at an owner. Run
// after CREATE_ITEMS; both tables have row-level security as a context migration adds it.
export const CREATE_EMBED_TABLES = `
  CREATE TABLE dataapi_owners (
    id uuid PRIMARY KEY, organization_id uuid NOT NULL REFERENCES organizations(id),
    name text NOT NULL, email text, secret text);
  SELECT enable_tenant_rls('dataapi_owners');
  CREATE TABLE dataapi_notes (
    id uuid PRIMARY KEY, organization_id uuid NOT NULL REFERENCES organizations(id), title text NOT NULL,
    item_id uuid CONSTRAINT dataapi_notes_item_id_fkey REFERENCES dataapi_items(id),
    backup_item_id uuid CONSTRAINT dataapi_notes_backup_item_id_fkey REFERENCES dataapi_items(id),
    owner_id uuid CONSTRAINT dataapi_notes_owner_id_fkey REFERENCES dataapi_owners(id));
  SELECT enable_tenant_rls('dataapi_notes');
  CREATE TABLE dataapi_item_owners (
    organization_id uuid NOT NULL REFERENCES organizations(id),
    item_id uuid NOT NULL CONSTRAINT dataapi_item_owners_item_id_fkey REFERENCES dataapi_items(id),
    owner_id uuid NOT NULL CONSTRAINT dataapi_item_owners_owner_id_fkey REFERENCES dataapi_owners(id),
    PRIMARY KEY (item_id, owner_id));
  SELECT enable_tenant_rls('dataapi_item_owners');`;

export const embedRegistry = defineRegistry([
  itemsRegistry.tables.get('dataapi_items')!,
  {
    name: 'dataapi_owners',
    columns: { id: 'uuid', organization_id: 'uuid', name: 'text', email: 'text', secret: 'text' },
    readable: ['id', 'organization_id', 'name', 'email'],
  },
  {
    name: 'dataapi_notes',
    columns: { id: 'uuid', organization_id: 'uuid', title: 'text', item_id: 'uuid', backup_item_id: 'uuid', owner_id: 'uuid' },
    readable: ['id', 'organization_id', 'title', 'item_id', 'backup_item_id', 'owner_id'],
    foreignKeys: [
      { name: 'dataapi_notes_item_id_fkey', column: 'item_id', references: { table: 'dataapi_items', column: 'id' } },
      { name: 'dataapi_notes_backup_item_id_fkey', column: 'backup_item_id', references: { table: 'dataapi_items', column: 'id' } },
      { name: 'dataapi_notes_owner_id_fkey', column: 'owner_id', references: { table: 'dataapi_owners', column: 'id' } },
    ],
  },
  // A junction (both foreign keys inside its primary key): items and owners are many-to-many.
  {
    name: 'dataapi_item_owners',
    columns: { organization_id: 'uuid', item_id: 'uuid', owner_id: 'uuid' },
    readable: ['item_id', 'owner_id'],
    primaryKey: ['item_id', 'owner_id'],
    foreignKeys: [
      { name: 'dataapi_item_owners_item_id_fkey', column: 'item_id', references: { table: 'dataapi_items', column: 'id' } },
      { name: 'dataapi_item_owners_owner_id_fkey', column: 'owner_id', references: { table: 'dataapi_owners', column: 'id' } },
    ],
  },
]);

const uuid = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

export const OWNERS = {
  ali: { id: uuid(1), name: 'Ali', email: 'ali@a.test' },
  bea: { id: uuid(2), name: 'Bea', email: null },
  // Organization B's.
  zed: { id: uuid(3), name: 'Zed', email: 'zed@b.test' },
};

export const NOTES = {
  first: { id: uuid(11), title: 'first', item_id: ITEMS_A[0].id, backup_item_id: ITEMS_A[1].id, owner_id: OWNERS.ali.id },
  second: { id: uuid(12), title: 'second', item_id: ITEMS_A[2].id, backup_item_id: null, owner_id: OWNERS.bea.id },
  third: { id: uuid(13), title: 'third', item_id: null, backup_item_id: null, owner_id: null },
  // A's note pointing at B's rows (nothing in the schema stops it): A must still never see them.
  leak: { id: uuid(14), title: 'leak', item_id: ITEMS_B[0].id, backup_item_id: null, owner_id: OWNERS.zed.id },
  // Organization B's.
  bee: { id: uuid(15), title: 'bee', item_id: ITEMS_B[0].id, backup_item_id: ITEMS_B[1].id, owner_id: OWNERS.zed.id },
};

export async function seedEmbed(runtime: PlatformRuntime, orgA: string, orgB: string): Promise<void> {
  await runtime.db.asSystem(async (tx) => {
    for (const [owner, org] of [
      [OWNERS.ali, orgA],
      [OWNERS.bea, orgA],
      [OWNERS.zed, orgB],
    ] as const) {
      await tx.query('INSERT INTO dataapi_owners (id, organization_id, name, email, secret) VALUES ($1, $2, $3, $4, $5)', [
        owner.id,
        org,
        owner.name,
        owner.email,
        'hidden',
      ]);
    }
    const notes = [
      [NOTES.first, orgA],
      [NOTES.second, orgA],
      [NOTES.third, orgA],
      [NOTES.leak, orgA],
      [NOTES.bee, orgB],
    ] as const;
    for (const [note, org] of notes) {
      await tx.query('INSERT INTO dataapi_notes (id, organization_id, title, item_id, backup_item_id, owner_id) VALUES ($1, $2, $3, $4, $5, $6)', [
        note.id,
        org,
        note.title,
        note.item_id,
        note.backup_item_id,
        note.owner_id,
      ]);
    }
    // Ali owns Apple and Banana, Bea owns Apple; A's last row points at B's Apple (hidden from A).
    const links = [
      [ITEMS_A[0], OWNERS.ali, orgA],
      [ITEMS_A[1], OWNERS.ali, orgA],
      [ITEMS_A[0], OWNERS.bea, orgA],
      [ITEMS_B[0], OWNERS.ali, orgA],
      [ITEMS_B[0], OWNERS.zed, orgB],
    ] as const;
    for (const [item, owner, org] of links) {
      await tx.query('INSERT INTO dataapi_item_owners (organization_id, item_id, owner_id) VALUES ($1, $2, $3)', [org, item.id, owner.id]);
    }
  });
}
