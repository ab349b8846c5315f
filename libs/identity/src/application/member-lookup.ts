import type { Tx } from '@engage/platform';

// Identity's answers for other contexts (docs/identity.md, "What other contexts read"): they ask
// here instead of reading memberships and users, which stay identity's own.

export type AccountStatus = 'active' | 'deactivated' | 'suspended';

// The caller's organization's member with this e-mail address (any case), or null. Runs in the
// caller's tenant transaction, so row-level security applies.
export async function memberByEmail(tx: Tx, email: string): Promise<{ id: string; status: AccountStatus } | null> {
  const [member] = await tx.query<{ id: string; status: AccountStatus }>(
    `SELECT u.id, u.status FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = app_org_id() AND lower(u.email) = lower($1)`,
    [email],
  );
  return member ?? null;
}
