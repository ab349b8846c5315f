import { Module } from '@nestjs/common';
import { type Config, Database, PLATFORM_RUNTIME, type PlatformRuntime, publicUrl, SecretBox, settingsOf } from '@engage/platform';
import { IDENTITY_SETTINGS } from './identity.settings';
import { AccountService } from './application/account.service';
import { AccountController } from './http/account.controller';
import { ProfilesWriter } from './application/profiles.writer';
import { PresenceService } from './application/presence.service';
import { PresenceJob } from './application/presence.job';
import { RateLimitPurge } from './application/rate-limit-purge.job';
import { PresenceController } from './http/presence.controller';
import { MembershipService } from './application/membership.service';
import { MembersController } from './http/members.controller';
import { InvitationsController } from './http/invitations.controller';
import { REDIRECT_ALLOWED, redirectAllowList } from './http/redirects';
import { ApiKeyService } from './application/api-key.service';
import { Authenticator } from './application/authenticator';
import { OrganizationService } from './application/organization.service';
import { OrganizationSettings } from './application/organization-settings';
import { RateLimiter } from './application/rate-limiter';
import { Reauthentication } from './application/reauthentication';
import { SessionService } from './application/session.service';
import { TokenService } from './infrastructure/token-service';
import { EMAIL_SENDER, type EmailSender } from './application/email-sender.port';
import { createEmailSender } from './infrastructure/email/email-sender.factory';
import { ApiKeysController } from './http/api-keys.controller';
import { AuthController } from './http/auth.controller';
import { AuthGuard } from './http/auth.guard';
import { MobileLoginController } from './http/mobile-login.controller';
import { OrganizationSettingsController } from './http/organization-settings.controller';

const loginLimitsOf = (config: Config) => {
  const { LOGIN_LIMIT_PER_EMAIL, LOGIN_LIMIT_PER_IP } = settingsOf(config, IDENTITY_SETTINGS);
  return { perEmail: LOGIN_LIMIT_PER_EMAIL, perIp: LOGIN_LIMIT_PER_IP };
};

@Module({
  controllers: [
    AuthController,
    AccountController,
    PresenceController,
    MembersController,
    InvitationsController,
    MobileLoginController,
    ApiKeysController,
    OrganizationSettingsController,
  ],
  providers: [
    { provide: TokenService, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => new TokenService(runtime.secrets.jwtSecret) },
    { provide: SecretBox, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => new SecretBox(runtime.secrets.encryptionKey) },
    { provide: RateLimiter, inject: [Database], useFactory: (db: Database) => new RateLimiter(db) },
    {
      provide: SessionService,
      inject: [Database, TokenService, RateLimiter, PLATFORM_RUNTIME],
      useFactory: (db: Database, tokens: TokenService, limiter: RateLimiter, runtime: PlatformRuntime) =>
        new SessionService(db, tokens, limiter, loginLimitsOf(runtime.config)),
    },
    { provide: Authenticator, inject: [Database, TokenService], useFactory: (db: Database, tokens: TokenService) => new Authenticator(db, tokens) },
    { provide: ApiKeyService, inject: [Database], useFactory: (db: Database) => new ApiKeyService(db) },
    { provide: OrganizationService, inject: [Database, SecretBox], useFactory: (db: Database, box: SecretBox) => new OrganizationService(db, box) },
    { provide: OrganizationSettings, inject: [Database, SecretBox], useFactory: (db: Database, box: SecretBox) => new OrganizationSettings(db, box) },
    {
      provide: EMAIL_SENDER,
      inject: [PLATFORM_RUNTIME],
      useFactory: (runtime: PlatformRuntime) => createEmailSender({ ...settingsOf(runtime.config, IDENTITY_SETTINGS), DATA_DIR: runtime.config.DATA_DIR }),
    },
    {
      provide: Reauthentication,
      inject: [Database, EMAIL_SENDER, RateLimiter],
      useFactory: (db: Database, mail: EmailSender, limiter: RateLimiter) => new Reauthentication(db, mail, limiter),
    },
    {
      provide: AccountService,
      inject: [Database, SessionService, EMAIL_SENDER, RateLimiter, PLATFORM_RUNTIME, Reauthentication],
      useFactory: (db: Database, sessions: SessionService, mail: EmailSender, limiter: RateLimiter, runtime: PlatformRuntime, reauth: Reauthentication) =>
        new AccountService(db, sessions, mail, limiter, publicUrl(runtime.config), reauth),
    },
    {
      provide: REDIRECT_ALLOWED,
      inject: [PLATFORM_RUNTIME],
      useFactory: (runtime: PlatformRuntime) => redirectAllowList(publicUrl(runtime.config), settingsOf(runtime.config, IDENTITY_SETTINGS).AUTH_REDIRECT_URLS),
    },
    ProfilesWriter,
    { provide: PresenceService, inject: [Database], useFactory: (db: Database) => new PresenceService(db) },
    PresenceJob,
    RateLimitPurge,
    {
      provide: MembershipService,
      inject: [Database, EMAIL_SENDER, PLATFORM_RUNTIME],
      useFactory: (db: Database, email: EmailSender, runtime: PlatformRuntime) => new MembershipService(db, email, runtime.config),
    },
    AuthGuard,
  ],
  exports: [
    EMAIL_SENDER,
    AccountService,
    ProfilesWriter,
    MembershipService,
    Authenticator,
    AuthGuard,
    TokenService,
    OrganizationService,
    OrganizationSettings,
    ApiKeyService,
    SecretBox,
  ],
})
export class IdentityModule {}
