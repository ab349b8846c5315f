import type { ComponentType } from 'react';
import { CheckEmailPage, VerifyPage } from './auth/check-email-page';
import { ForgotPasswordPage, ResetPasswordPage } from './auth/password-pages';
import { useSession } from './auth/session';
import { SignInPage } from './auth/sign-in-page';
import { SignUpPage } from './auth/sign-up-page';
import { AutomationPage } from './automation/automation-page';
import { CampaignsPage } from './campaigns/campaigns-page';
import { CompaniesPage } from './companies/companies-page';
import { ContactsPage } from './contacts/contacts-page';
import { DashboardsPage } from './dashboards/dashboards-page';
import { DealsPage } from './deals/deals-page';
import { InboxPage } from './inbox/inbox-page';
import { OnboardingPage } from './onboarding/onboarding-page';
import { useOnboarding } from './onboarding/onboarding.api';
import { Redirect, useLocation } from './router';
import { SettingsPage } from './settings/settings-page';
import { Shell } from './shell/shell';
import { AuthLayout, ErrorAlert, Loading } from './ui/page';

// Pages for a visitor without a session.
const PUBLIC: Record<string, ComponentType> = {
  '/sign-in': SignInPage,
  '/sign-up': SignUpPage,
  '/check-email': CheckEmailPage,
  '/verify': VerifyPage,
  '/forgot-password': ForgotPasswordPage,
};

// Pages inside the shell, in the order of the navigation.
export const SECTIONS: { path: string; label: string; page: ComponentType }[] = [
  { path: '/inbox', label: 'Inbox', page: InboxPage },
  { path: '/contacts', label: 'Contacts', page: ContactsPage },
  { path: '/companies', label: 'Companies', page: CompaniesPage },
  { path: '/deals', label: 'Deals', page: DealsPage },
  { path: '/dashboards', label: 'Dashboards', page: DashboardsPage },
  { path: '/automation', label: 'Automation', page: AutomationPage },
  { path: '/campaigns', label: 'Campaigns', page: CampaignsPage },
  { path: '/settings', label: 'Settings', page: SettingsPage },
];

export function App() {
  const { session, loading } = useSession();
  const { path } = useLocation();
  if (loading) return <Loading what="your session" />;
  const Public = PUBLIC[path];
  if (Public) return path === '/verify' || !session || !['/sign-in', '/sign-up'].includes(path) ? <Public /> : <Redirect to="/" />;
  if (!session) return <Redirect to="/sign-in" />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (path === '/onboarding') return <OnboardingPage />;
  return <SignedIn path={path} />;
}

function SignedIn({ path }: { path: string }) {
  const onboarding = useOnboarding();
  if (onboarding.isPending) return <Loading what="your account" />;
  if (onboarding.error) {
    return (
      <AuthLayout>
        <ErrorAlert error={onboarding.error} />
      </AuthLayout>
    );
  }
  if (!onboarding.data.onboarding_completed) return <Redirect to="/onboarding" />;
  const section = SECTIONS.find((candidate) => candidate.path === path || path.startsWith(`${candidate.path}/`));
  if (!section) return <Redirect to="/inbox" />;
  return (
    <Shell sections={SECTIONS}>
      <section.page />
    </Shell>
  );
}
