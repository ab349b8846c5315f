import type { Tx } from '@engage/platform';

// For other contexts (deal auto-reassignment): the organization's active members who are online,
// in a stable order. Runs in the caller's tenant transaction, so row-level security applies.
export async function onlineMemberIds(tx: Tx): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>(
    `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.organization_id = app_org_id() AND u.is_online AND u.status = 'active' ORDER BY m.user_id`,
  );
  return rows.map((row) => row.user_id);
}
