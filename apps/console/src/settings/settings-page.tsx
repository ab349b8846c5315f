import type { ComponentType } from 'react';
import { Link, Redirect, useLocation } from '../router';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';
import { ApiKeysSection } from './api-keys-section';
import { ChannelsSection } from './channels-section';
import { OrganizationSection } from './organization-section';
import { ProfileSection } from './profile-section';
import { ReengagementSection } from './reengagement-section';
import { managesOrganization, useProfile } from './profile.api';
import { SubscriptionSection } from './subscription-section';
import { TeamSection } from './team-section';
import { WebhooksSection } from './webhooks-section';

interface SettingsSection {
  path: string;
  label: string;
  page: ComponentType;
  // Whether a member of this role may use the section; the others are not offered it at all.
  allowed: (role: string) => boolean;
}

const everyone = () => true;

// The settings sections, in the order of their navigation (docs/console.md, "Settings").
const SECTIONS: SettingsSection[] = [
  { path: '/settings', label: 'Profile', page: ProfileSection, allowed: everyone },
  { path: '/settings/team', label: 'Team', page: TeamSection, allowed: everyone },
  { path: '/settings/api-keys', label: 'API keys', page: ApiKeysSection, allowed: managesOrganization },
  { path: '/settings/webhooks', label: 'Webhooks', page: WebhooksSection, allowed: managesOrganization },
  { path: '/settings/channels', label: 'Channels', page: ChannelsSection, allowed: managesOrganization },
  { path: '/settings/re-engagement', label: 'Re-engagement', page: ReengagementSection, allowed: managesOrganization },
  { path: '/settings/organization', label: 'Organization', page: OrganizationSection, allowed: everyone },
  { path: '/settings/subscription', label: 'Subscription', page: SubscriptionSection, allowed: everyone },
];

export function SettingsPage() {
  const { path } = useLocation();
  const profile = useProfile();
  if (profile.isPending) return <Loading what="your profile" />;
  if (profile.error || !profile.data) return <ErrorAlert error={profile.error ?? new Error('Your profile was not found.')} />;
  const role = profile.data.role;
  const offered = SECTIONS.filter((section) => section.allowed(role));
  const section = offered.find((candidate) => path === candidate.path || (candidate.path !== '/settings' && path.startsWith(`${candidate.path}/`)));
  if (!section) return <Redirect to="/settings" />;
  return (
    <>
      <PageHeading>Settings</PageHeading>
      <nav aria-label="Settings" className="subnav">
        <ul>
          {offered.map((candidate) => (
            <li key={candidate.path}>
              <Link to={candidate.path} aria-current={candidate === section ? 'page' : undefined}>
                {candidate.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <section.page />
    </>
  );
}
