import { Link, useLocation } from '../router';
import { managesOrganization, useProfile } from '../settings/profile.api';
import { PageHeading } from '../ui/page';
import { BroadcastDetails, BroadcastList, NewBroadcast } from './broadcasts';
import { Segments } from './segments';
import { NewSequence, SequenceDetails, SequenceList } from './sequences';

const SEQUENCES_PATH = '/campaigns/sequences';

// Campaigns (issue 38 item 4): segments, broadcasts and drip sequences over the campaigns API
// (docs/campaigns.md). Every member reads; OWNER and ADMIN create, start, pause, resume, cancel,
// enrol and exit.
export function CampaignsPage() {
  const { path } = useLocation();
  const editable = managesOrganization(useProfile().data?.role);
  const sequences = path === SEQUENCES_PATH || path.startsWith(`${SEQUENCES_PATH}/`);
  const sequenceId = path.startsWith(`${SEQUENCES_PATH}/`) ? path.slice(SEQUENCES_PATH.length + 1) : null;
  const id = path.startsWith('/campaigns/broadcasts/') ? path.slice('/campaigns/broadcasts/'.length) : null;
  return (
    <>
      <PageHeading>Campaigns</PageHeading>
      <nav aria-label="Campaigns" className="subnav">
        <ul>
          <li>
            <Link to="/campaigns" aria-current={sequences ? undefined : 'page'}>
              Broadcasts and segments
            </Link>
          </li>
          <li>
            <Link to={SEQUENCES_PATH} aria-current={sequences ? 'page' : undefined}>
              Sequences
            </Link>
          </li>
        </ul>
      </nav>
      {sequenceId === 'new' && editable ? (
        <NewSequence />
      ) : sequenceId && sequenceId !== 'new' ? (
        <SequenceDetails id={sequenceId} editable={editable} />
      ) : sequences ? (
        <SequenceList editable={editable} />
      ) : id === 'new' ? (
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
