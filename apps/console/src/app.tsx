import { type ComponentType, lazy, Suspense } from 'react';
import { CheckEmailPage, VerifyPage } from './auth/check-email-page';
import { ForgotPasswordPage, ResetPasswordPage } from './auth/password-pages';
import { useSession } from './auth/session';
import { SignInPage } from './auth/sign-in-page';
import { SignUpPage } from './auth/sign-up-page';
import { OnboardingPage } from './onboarding/onboarding-page';
import { useOnboarding } from './onboarding/onboarding.api';
import { Redirect, useLocation } from './router';
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

// The pages inside the shell are loaded when first opened (each its own chunk with what only it
// uses: the board's drag and drop, the dashboards' charts, the flow editor), so signing in loads
// only the shell and the page it lands on.
const AutomationPage = lazy(() => import('./automation/automation-page').then((m) => ({ default: m.AutomationPage })));
const CampaignsPage = lazy(() => import('./campaigns/campaigns-page').then((m) => ({ default: m.CampaignsPage })));
const CompaniesPage = lazy(() => import('./companies/companies-page').then((m) => ({ default: m.CompaniesPage })));
const ContactsPage = lazy(() => import('./contacts/contacts-page').then((m) => ({ default: m.ContactsPage })));
const DashboardsPage = lazy(() => import('./dashboards/dashboards-page').then((m) => ({ default: m.DashboardsPage })));
const DealsPage = lazy(() => import('./deals/deals-page').then((m) => ({ default: m.DealsPage })));
const InboxPage = lazy(() => import('./inbox/inbox-page').then((m) => ({ default: m.InboxPage })));
const SettingsPage = lazy(() => import('./settings/settings-page').then((m) => ({ default: m.SettingsPage })));

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
      <Suspense fallback={<Loading what={section.label.toLowerCase()} />}>
        <section.page />
      </Suspense>
    </Shell>
  );
}
