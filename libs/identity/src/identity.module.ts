import { Module } from '@nestjs/common';
import { Database, PLATFORM_RUNTIME, type PlatformRuntime, SecretBox } from '@engage/platform';
import { ApiKeyService } from './application/api-key.service';
import { Authenticator } from './application/authenticator';
import { OrganizationService } from './application/organization.service';
import { RateLimiter } from './application/rate-limiter';
import { SessionService } from './application/session.service';
import { TokenService } from './infrastructure/token-service';
import { EMAIL_SENDER } from './application/email-sender.port';
import { createEmailSender } from './infrastructure/email/email-sender.factory';
import { ApiKeysController } from './http/api-keys.controller';
import { AuthController } from './http/auth.controller';
import { AuthGuard } from './http/auth.guard';
import { MobileLoginController } from './http/mobile-login.controller';

@Module({
  controllers: [AuthController, MobileLoginController, ApiKeysController],
  providers: [
    { provide: TokenService, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => new TokenService(runtime.secrets.jwtSecret) },
    { provide: SecretBox, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => new SecretBox(runtime.secrets.encryptionKey) },
    { provide: RateLimiter, inject: [Database], useFactory: (db: Database) => new RateLimiter(db) },
    { provide: SessionService, inject: [Database, TokenService, RateLimiter], useFactory: (db: Database, tokens: TokenService, limiter: RateLimiter) => new SessionService(db, tokens, limiter) },
    { provide: Authenticator, inject: [Database, TokenService], useFactory: (db: Database, tokens: TokenService) => new Authenticator(db, tokens) },
    { provide: ApiKeyService, inject: [Database], useFactory: (db: Database) => new ApiKeyService(db) },
    { provide: OrganizationService, inject: [Database, SecretBox], useFactory: (db: Database, box: SecretBox) => new OrganizationService(db, box) },
    { provide: EMAIL_SENDER, inject: [PLATFORM_RUNTIME], useFactory: (runtime: PlatformRuntime) => createEmailSender(runtime.config) },
    AuthGuard,
  ],
  exports: [EMAIL_SENDER, Authenticator, AuthGuard, TokenService, OrganizationService, ApiKeyService, SecretBox],
})
export class IdentityModule {}
