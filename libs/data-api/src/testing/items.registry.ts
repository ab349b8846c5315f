import { defineRegistry } from '../registry';

// The fixture table of the db tests (read.db.test.ts creates it) plus a contacts shape for parser tests.
export const itemsRegistry = defineRegistry([
  {
    name: 'dataapi_items',
    columns: {
      id: 'uuid',
      organization_id: 'uuid',
      name: 'text',
      qty: 'int',
      price: 'numeric',
      tags: 'text[]',
      meta: 'jsonb',
      active: 'bool',
      body: 'text',
      created_at: 'timestamptz',
      secret: 'text',
    },
    readable: ['id', 'organization_id', 'name', 'qty', 'price', 'tags', 'meta', 'active', 'body', 'created_at'],
  },
  {
    name: 'contacts',
    columns: { id: 'uuid', first_name: 'text', phones: 'text[]', birthday: 'date', owner_id: 'uuid' },
    readable: ['id', 'first_name', 'phones', 'birthday', 'owner_id'],
    foreignKeys: [{ name: 'contacts_owner_id_fkey', column: 'owner_id', references: { table: 'dataapi_items', column: 'id' } }],
  },
]);
