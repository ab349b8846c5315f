import { defineContext, type MigrationClass } from '@engage/platform';
import { IdentityModule } from './identity.module';
import { IDENTITY_SETTINGS } from './identity.settings';
import { identitySchedules } from './application/presence.job';
import { IDENTITY_PERMISSIONS } from './domain/permissions';
import { IDENTITY_TABLES } from './infrastructure/exposed-tables';
import { ORGANIZATION_CREATED } from './domain/organization-events';
import { CreateIdentityTables1763800001001 } from './infrastructure/migrations/0001-create-identity-tables';
import { CreateInvitations1763800001002 } from './infrastructure/migrations/0002-create-invitations';
import { CreateEmailTokens1763800001003 } from './infrastructure/migrations/0003-create-email-tokens';
import { AddProfileFields1763800001004 } from './infrastructure/migrations/0004-add-profile-fields';
import { CreateProfilesView1763800001005 } from './infrastructure/migrations/0005-create-profiles-view';
import { AddReauthenticationNonces1763800001006 } from './infrastructure/migrations/0006-add-reauthentication-nonces';
import { LetUsersWriteOwnProfile1763800001007 } from './infrastructure/migrations/0007-let-users-write-own-profile';
import { PublishOrganizationOwners1763800001008 } from './infrastructure/migrations/0008-publish-organization-owners';
import { ProfilesWriter } from './application/profiles.writer';

export { IdentityModule } from './identity.module';
export { Authenticated, AuthGuard, CurrentCaller } from './http/auth.guard';
export { Authenticator, type Caller, type CredentialKind } from './application/authenticator';
export { ApiKeyService } from './application/api-key.service';
export { AccountService } from './application/account.service';
export { ProfilesWriter } from './application/profiles.writer';
export { MembershipService, type MemberView, type InvitationView } from './application/membership.service';
export { OrganizationService, SECRET_SETTINGS } from './application/organization.service';
export { OrganizationSettings } from './application/organization-settings';
export { TokenService } from './infrastructure/token-service';
export { ARGON2_PARAMETERS } from './infrastructure/password-hasher';
export { type BusinessHours, MAX_INTERVALS_PER_DAY, parseBusinessHours, WEEKDAYS } from './domain/business-hours';
export { API_KEYS_MANAGE, assertAllowed, IDENTITY_PERMISSIONS, isAllowed, MEMBERS_MANAGE, ORGANIZATION_SETTINGS_MANAGE } from './domain/permissions';

export const identityMigrations: MigrationClass[] = [
  CreateIdentityTables1763800001001,
  CreateInvitations1763800001002,
  CreateEmailTokens1763800001003,
  AddProfileFields1763800001004,
  CreateProfilesView1763800001005,
  AddReauthenticationNonces1763800001006,
  LetUsersWriteOwnProfile1763800001007,
  PublishOrganizationOwners1763800001008,
];
export { listDevMailbox, type DevMail } from './infrastructure/email/dev-mailbox-email-sender';
export { onlineMemberIds } from './application/online-members';
export { type AccountStatus, memberByEmail } from './application/member-lookup';
export { EMAIL_SENDER, type EmailMessage, type EmailSender } from './application/email-sender.port';

// Identity as the composition sees it. Profiles are served by the data API like every table.
export const identityManifest = defineContext({
  name: 'identity',
  module: IdentityModule,
  migrations: identityMigrations,
  tables: [{ table: IDENTITY_TABLES.profiles, writer: ProfilesWriter }],
  publishes: [ORGANIZATION_CREATED],
  consumes: {},
  settings: IDENTITY_SETTINGS,
  jobs: { schedules: identitySchedules },
  permissions: IDENTITY_PERMISSIONS,
});
export { identitySchedules } from './application/presence.job';
export { IDENTITY_SETTINGS } from './identity.settings';
export { ORGANIZATION_CREATED, type OrganizationCreatedPayload } from './domain/organization-events';
