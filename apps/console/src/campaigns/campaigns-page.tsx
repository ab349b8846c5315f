import { useLocation } from '../router';
import { managesOrganization, useProfile } from '../settings/profile.api';
import { PageHeading } from '../ui/page';
import { BroadcastDetails, BroadcastList, NewBroadcast } from './broadcasts';
import { Segments } from './segments';

// Campaigns (issue 38 item 4): segments and broadcasts over the campaigns API (docs/campaigns.md).
// Every member reads; OWNER and ADMIN create, start, pause, resume and cancel.
export function CampaignsPage() {
  const { path } = useLocation();
  const editable = managesOrganization(useProfile().data?.role);
  const id = path.startsWith('/campaigns/broadcasts/') ? path.slice('/campaigns/broadcasts/'.length) : null;
  return (
    <>
      <PageHeading>Campaigns</PageHeading>
      {id === 'new' ? (
        <NewBroadcast />
      ) : id ? (
        <BroadcastDetails id={id} editable={editable} />
      ) : (
        <>
          <BroadcastList editable={editable} />
          <Segments editable={editable} />
        </>
      )}
    </>
  );
}
