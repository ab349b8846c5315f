import { Module } from '@nestjs/common';
import { Database } from '@engage/platform';
import { AccountService, IdentityModule, ProfilesWriter } from '@engage/identity';
import { OnboardingService } from './application/onboarding.service';
import { OnboardingController } from './http/onboarding.controller';

@Module({
  imports: [IdentityModule],
  controllers: [OnboardingController],
  providers: [
    {
      provide: OnboardingService,
      inject: [Database, AccountService, ProfilesWriter],
      useFactory: (db: Database, accounts: AccountService, profiles: ProfilesWriter) => new OnboardingService(db, accounts, profiles),
    },
  ],
})
export class OnboardingModule {}
