import { defineContext, type MigrationClass } from '@engage/platform';
import { CreateOnboarding1763800011001 } from './infrastructure/migrations/0001-create-onboarding';
import { ReadBillingView1763800011002 } from './infrastructure/migrations/0002-read-billing-view';
import { OnboardingModule } from './onboarding.module';

export { OnboardingModule } from './onboarding.module';
export { onboardingState, type OnboardingState, STEPS as ONBOARDING_STEPS } from './domain/onboarding-steps';

export const onboardingMigrations: MigrationClass[] = [CreateOnboarding1763800011001, ReadBillingView1763800011002];

// Onboarding (§3): its state is derived from identity (email confirmed), billing (subscription) and
// messaging (channel accounts) facts; it writes profiles.onboarding_completed through identity.
export const onboardingManifest = defineContext({
  name: 'onboarding',
  module: OnboardingModule,
  migrations: onboardingMigrations,
  tables: [],
  publishes: [],
  consumes: {},
});
