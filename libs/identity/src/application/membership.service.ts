import { Conflict, DomainError, Forbidden, isRole, isUuid, NotFound, type RequestContext, type Role, ROLES, Unauthorized } from '@engage/shared-kernel';
import { type Config, type Database, publicUrl, type Tx } from '@engage/platform';
import { assertAllowed, MEMBERS_MANAGE } from '../domain/permissions';
import { assertAcceptablePassword, normalizeEmail } from '../domain/password-policy';
import {
  CONFIRM_EMAIL,
  DELETE_MEMBERSHIP,
  INSERT_INVITATION,
  INSERT_INVITED_USER,
  INSERT_MEMBERSHIP,
  INVITATION_BY_TOKEN_FOR_UPDATE,
  INVITATION_PREVIEW,
  type InvitationRow,
  IS_MEMBER_EMAIL,
  LIST_MEMBERS,
  LIST_OPEN_INVITATIONS,
  LOCK_INVITATION_ADDRESS,
  LOCK_OWNERS,
  MARK_INVITATION_ACCEPTED,
  MEMBER_BY_ID,
  type MemberRow,
  MEMBERSHIP_FOR_UPDATE,
  ORGANIZATION_NAME,
  REVOKE_INVITATION,
  REVOKE_OPEN_INVITATIONS_OF_EMAIL,
  REVOKE_ORGANIZATION_SESSIONS,
  ROLE_OF,
  UPDATE_ROLE,
  USER_BY_EMAIL_FOR_INVITATION,
} from '../infrastructure/membership.sql';
import { hashPassword, verifyPassword } from '../infrastructure/password-hasher';
import { newOpaqueToken, sha256 } from '../infrastructure/token-service';
import type { EmailSender } from './email-sender.port';
import { assertActive } from './session.service';

export const INVITATION_DAYS = 7;

export interface MemberView {
  id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  role: string;
  is_online: boolean;
  created_at: string;
}

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  expires_at: string;
  created_at: string;
}

export interface AcceptInvitationInput {
  token: unknown;
  password: unknown;
  first_name?: string;
  last_name?: string;
}

const invalid = (field: string, message: string) => new DomainError('validation', 'validation_failed', `${field} ${message}`);
const invitationInvalid = () => new DomainError('validation', 'invitation_invalid', 'This invitation link is invalid or has already been used');
const invitationExpired = () => new DomainError('validation', 'invitation_expired', 'This invitation link has expired; ask for a new one');

function checkRole(role: unknown): Role {
  if (!isRole(role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
  return role;
}

function checkUserId(userId: unknown): string {
  if (!isUuid(userId)) throw invalid('user id', 'must be a UUID');
  return userId;
}

function checkToken(token: unknown): string {
  if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw invitationInvalid();
  return token;
}

function checkName(field: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > 100) throw invalid(field, 'must be at most 100 characters');
  if (value.includes('\u0000')) throw invalid(field, 'must not contain NUL characters');
  return value.trim();
}

// Only an OWNER may grant OWNER or touch an OWNER's membership.
function assertMayTouchOwner(actingRole: string, message: string): void {
  if (actingRole !== 'OWNER') throw Forbidden('owner_required', message);
}

// Members, their roles and invitations. The caller's role is re-read inside the transaction, so a
// role changed a moment ago counts, not the one the request started with.
export class MembershipService {
  constructor(
    private readonly db: Database,
    private readonly email: EmailSender,
    private readonly config: Config,
  ) {}

  async listMembers(ctx: RequestContext): Promise<MemberView[]> {
    if (!isRole(ctx.role)) throw Forbidden('insufficient_role', 'Only members of the organization may list its members');
    const rows = await this.db.inTenant(ctx, (tx) => tx.query<MemberRow>(LIST_MEMBERS, [ctx.organizationId]));
    return rows.map(memberView);
  }

  async invite(ctx: RequestContext, input: { email: unknown; role: unknown }): Promise<InvitationView> {
    assertAllowed(ctx.role, MEMBERS_MANAGE);
    const email = normalizeEmail(input.email);
    const role = checkRole(input.role);
    const token = newOpaqueToken();
    const { invitation, organizationName } = await this.db.inTenant(ctx, async (tx) => {
      const actingRole = await this.actingRole(tx, ctx);
      if (role === 'OWNER') assertMayTouchOwner(actingRole, 'Only an OWNER may invite an OWNER');
      await tx.query(LOCK_INVITATION_ADDRESS, [`invitation:${ctx.organizationId}:${email}`]);
      const [{ member }] = await tx.query<{ member: boolean }>(IS_MEMBER_EMAIL, [ctx.organizationId, email]);
      if (member) throw Conflict('already_member', `${email} is already a member of this organization`, { email });
      await tx.query(REVOKE_OPEN_INVITATIONS_OF_EMAIL, [ctx.organizationId, email]);
      const [row] = await tx.query<InvitationRow>(INSERT_INVITATION, [ctx.organizationId, email, role, sha256(token), ctx.userId, INVITATION_DAYS]);
      const [org] = await tx.query<{ name: string }>(ORGANIZATION_NAME, [ctx.organizationId]);
      return { invitation: row, organizationName: org?.name ?? 'an organization' };
    });
    // Sent after commit so a slow mail server holds no locks; an invitation nobody received is revoked.
    try {
      await this.email.send(this.invitationEmail(email, role, organizationName, token, invitation.expires_at));
    } catch (error) {
      await this.db.inTenant(ctx, (tx) => tx.query(REVOKE_INVITATION, [ctx.organizationId, invitation.id]));
      throw new DomainError('upstream', 'email_send_failed', 'The invitation email could not be sent; try again later', {
        cause: error instanceof Error ? error.message : String(error),
      });
    }
    return invitationView(invitation);
  }

  async listInvitations(ctx: RequestContext): Promise<InvitationView[]> {
    assertAllowed(ctx.role, MEMBERS_MANAGE);
    const rows = await this.db.inTenant(ctx, (tx) => tx.query<InvitationRow>(LIST_OPEN_INVITATIONS, [ctx.organizationId]));
    return rows.map(invitationView);
  }

  async revokeInvitation(ctx: RequestContext, id: unknown): Promise<void> {
    assertAllowed(ctx.role, MEMBERS_MANAGE);
    if (!isUuid(id)) throw invalid('id', 'must be a UUID');
    const revoked = await this.db.inTenant(ctx, (tx) => tx.execute(REVOKE_INVITATION, [ctx.organizationId, id]));
    if (revoked === 0) throw NotFound('invitation', id);
  }

  // What the emailed link shows before the invitee chooses a password.
  async previewInvitation(token: unknown): Promise<{ email: string; role: string; organization_name: string; expires_at: string }> {
    const hash = sha256(checkToken(token));
    const [row] = await this.db.asSystem((tx) =>
      tx.query<{
        email: string;
        role: string;
        expires_at: Date;
        accepted_at: Date | null;
        revoked_at: Date | null;
        expired: boolean;
        organization_name: string;
      }>(INVITATION_PREVIEW, [hash]),
    );
    if (!row || row.accepted_at || row.revoked_at) throw invitationInvalid();
    if (row.expired) throw invitationExpired();
    return { email: row.email, role: row.role, organization_name: row.organization_name, expires_at: row.expires_at.toISOString() };
  }

  // No session: the token is the credential. System transaction because the user may not exist yet
  // and no organization is known until the token is looked up.
  async acceptInvitation(input: AcceptInvitationInput): Promise<{ user_id: string; organization_id: string; role: string }> {
    const hash = sha256(checkToken(input.token));
    if (typeof input.password !== 'string' || input.password.length === 0 || input.password.length > 1024)
      throw invalid('password', 'must be a non-empty string');
    const password = input.password;
    const firstName = checkName('first_name', input.first_name);
    const lastName = checkName('last_name', input.last_name);
    return this.db.asSystem(async (tx) => {
      const [invitation] = await tx.query<{
        id: string;
        organization_id: string;
        email: string;
        role: string;
        accepted_at: Date | null;
        revoked_at: Date | null;
        expired: boolean;
      }>(INVITATION_BY_TOKEN_FOR_UPDATE, [hash]);
      if (!invitation || invitation.accepted_at || invitation.revoked_at) throw invitationInvalid();
      if (invitation.expired) throw invitationExpired();
      const userId = await this.userForInvitation(tx, invitation.email, password, firstName, lastName);
      const [joined] = await tx.query(INSERT_MEMBERSHIP, [invitation.organization_id, userId, invitation.role]);
      if (!joined) throw Conflict('already_member', `${invitation.email} is already a member of this organization`, { email: invitation.email });
      await tx.query(MARK_INVITATION_ACCEPTED, [invitation.id, userId]);
      return { user_id: userId, organization_id: invitation.organization_id, role: invitation.role };
    });
  }

  async changeRole(ctx: RequestContext, userId: unknown, role: unknown): Promise<MemberView> {
    assertAllowed(ctx.role, MEMBERS_MANAGE);
    const target = checkUserId(userId);
    const newRole = checkRole(role);
    return this.db.inTenant(ctx, async (tx) => {
      const { currentRole, actingRole, owners } = await this.lockForChange(tx, ctx, target);
      if (currentRole === 'OWNER') assertMayTouchOwner(actingRole, 'Only an OWNER may change the role of an OWNER');
      if (newRole === 'OWNER') assertMayTouchOwner(actingRole, 'Only an OWNER may grant the OWNER role');
      if (currentRole === 'OWNER' && newRole !== 'OWNER' && owners <= 1) throw lastOwner();
      await tx.execute(UPDATE_ROLE, [ctx.organizationId, target, newRole]);
      const [row] = await tx.query<MemberRow>(MEMBER_BY_ID, [ctx.organizationId, target]);
      return memberView(row);
    });
  }

  async removeMember(ctx: RequestContext, userId: unknown): Promise<void> {
    assertAllowed(ctx.role, MEMBERS_MANAGE);
    const target = checkUserId(userId);
    await this.db.inTenant(ctx, async (tx) => {
      const { currentRole, actingRole, owners } = await this.lockForChange(tx, ctx, target);
      if (currentRole === 'OWNER') assertMayTouchOwner(actingRole, 'Only an OWNER may remove an OWNER');
      if (currentRole === 'OWNER' && owners <= 1) throw lastOwner();
      await tx.execute(DELETE_MEMBERSHIP, [ctx.organizationId, target]);
    });
    // The Authenticator already refuses a non-member; this also ends their refresh tokens here.
    await this.db.asSystem((tx) => tx.execute(REVOKE_ORGANIZATION_SESSIONS, [target, ctx.organizationId]));
  }

  // Locks the OWNER rows, then the target's row; returns what the rules need.
  private async lockForChange(tx: Tx, ctx: RequestContext, target: string): Promise<{ currentRole: string; actingRole: string; owners: number }> {
    const owners = await tx.query<{ user_id: string }>(LOCK_OWNERS, [ctx.organizationId]);
    const [membership] = await tx.query<{ role: string }>(MEMBERSHIP_FOR_UPDATE, [ctx.organizationId, target]);
    if (!membership) throw NotFound('member', target);
    const actingRole = await this.actingRole(tx, ctx);
    return { currentRole: membership.role, actingRole, owners: owners.length };
  }

  private async actingRole(tx: Tx, ctx: RequestContext): Promise<string> {
    if (ctx.userId === null) return ctx.role;
    const [me] = await tx.query<{ role: string }>(ROLE_OF, [ctx.organizationId, ctx.userId]);
    if (!me) throw Forbidden('insufficient_role', 'You are no longer a member of this organization');
    assertAllowed(me.role, MEMBERS_MANAGE);
    return me.role;
  }

  private async userForInvitation(tx: Tx, email: string, password: string, firstName: string | null, lastName: string | null): Promise<string> {
    const [existing] = await tx.query<{ id: string; password_hash: string; status: string }>(USER_BY_EMAIL_FOR_INVITATION, [email]);
    if (existing) {
      // An existing account joins only with its own password: the link alone must not take it over.
      if (!(await verifyPassword(existing.password_hash, password))) throw Unauthorized('invalid_credentials', 'Invalid login credentials');
      assertActive(existing.status);
      // Opening the emailed link proves the address, as for a new account.
      await tx.query(CONFIRM_EMAIL, [existing.id]);
      return existing.id;
    }
    assertAcceptablePassword(password);
    const [created] = await tx.query<{ id: string }>(INSERT_INVITED_USER, [
      email,
      await hashPassword(password),
      firstName || email.split('@')[0],
      lastName || null,
    ]);
    if (!created) throw Conflict('user_already_exists', 'User already registered; try again', { email });
    return created.id;
  }

  private invitationEmail(to: string, role: Role, organizationName: string, token: string, expiresAt: Date) {
    const link = `${publicUrl(this.config)}/functions/v1/invitations/accept?token=${encodeURIComponent(token)}`;
    const text = [
      `You have been invited to join ${organizationName} as ${role}.`,
      '',
      `Accept the invitation: ${link}`,
      '',
      `The link works once and expires on ${expiresAt.toISOString()}. If you did not expect this invitation, ignore this email.`,
    ].join('\n');
    return { to, subject: `Invitation to join ${organizationName}`, text };
  }
}

const lastOwner = () => Conflict('last_owner', 'The last OWNER of an organization cannot be removed or demoted; make another member OWNER first');

const memberView = (row: MemberRow): MemberView => ({
  id: row.id,
  email: row.email,
  first_name: row.first_name,
  last_name: row.last_name,
  role: row.role,
  is_online: row.is_online,
  created_at: row.created_at.toISOString(),
});

const invitationView = (row: InvitationRow): InvitationView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  expires_at: row.expires_at.toISOString(),
  created_at: row.created_at.toISOString(),
});
