import { randomUUID } from 'node:crypto';
import type { ContactService } from '@engage/crm';
import { type Database, defineJob, enqueueJob, type JobContext, type JobHandler, type SecretBox, type Tx } from '@engage/platform';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { type GraphProfileApi, GraphProfileError, type MetaProfile } from './graph-profile-api';

export interface MetaProfilePayload {
  channelAccountId: string;
  userId: string;
  contactId: string;
}

// The name a contact created from a page-scoped id carries until its profile is known.
export const PLACEHOLDER_NAME = 'Unknown Contact';

const CHANNEL = `SELECT kind, access_token_sealed FROM channel_accounts WHERE id = $1`;

// Enqueued in the worker's transaction that created the contact, so the look-up happens only if
// the contact was stored, and never on the webhook's acknowledgement path.
export function enqueueMetaProfile(tx: Tx, payload: MetaProfilePayload): Promise<void> {
  return enqueueJob(tx, metaProfileJob, payload);
}

// Names a contact created from a Messenger or Instagram id from the Graph API's profile. The
// message is stored already: a failed look-up leaves the placeholder name and a log line (never
// the token). A time-out or a 5xx is tried again (3 runs in all); a contact renamed meanwhile is
// left as it is.
export class MetaProfileLookup implements JobHandler<MetaProfilePayload> {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
    private readonly box: SecretBox,
    private readonly graph: GraphProfileApi,
    private readonly log: (fields: Record<string, unknown>, line: string) => void,
    private readonly maxAttempts = META_PROFILE_ATTEMPTS,
  ) {}

  async handle(payload: MetaProfilePayload, job: JobContext): Promise<void> {
    if (!job.organizationId) throw new Error('a Meta profile job belongs to an organization');
    const ctx: RequestContext = { organizationId: job.organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<{ kind: string; access_token_sealed: string | null }>(CHANNEL, [payload.channelAccountId]));
    if (!channel?.access_token_sealed || (channel.kind !== 'messenger' && channel.kind !== 'instagram')) return;
    const fields = { contact_id: payload.contactId, channel_account_id: payload.channelAccountId, attempt: job.attempt };
    let profile;
    try {
      profile = await this.graph.lookup(channel.kind, payload.userId, this.box.open(channel.access_token_sealed));
    } catch (error) {
      const transient = error instanceof GraphProfileError && error.transient;
      if (transient && job.attempt < this.maxAttempts) throw error;
      this.log({ ...fields, error: (error as Error).message }, 'meta profile look-up failed: the contact keeps its placeholder name');
      return;
    }
    if (!profile) return;
    try {
      await this.store(ctx, payload.contactId, profile);
    } catch (error) {
      // A contact whose fields refuse the profile (e.g. custom fields at their size limit) keeps its
      // name; anything else (the database) is tried again by the runner.
      if (!(error instanceof DomainError)) throw error;
      this.log({ ...fields, error: (error as Error).message }, 'meta profile could not be stored: the contact keeps its placeholder name');
    }
  }

  private async store(ctx: RequestContext, contactId: string, profile: MetaProfile): Promise<void> {
    await this.db.inTenant(ctx, async (tx) => {
      // Locked through the CRM (its table is its own) until the update below.
      const contact = await this.contacts.lockIn(tx, contactId);
      if (!contact || contact.first_name !== PLACEHOLDER_NAME || contact.last_name !== null) return;
      const extra = { ...(profile.profilePic ? { profile_pic_url: profile.profilePic } : {}), ...(profile.username ? { username: profile.username } : {}) };
      await this.contacts.updateIn(tx, ctx, contactId, {
        first_name: profile.firstName,
        last_name: profile.lastName,
        custom_fields: { ...contact.custom_fields, ...extra },
      });
    });
  }
}

export const META_PROFILE_ATTEMPTS = 3;
export const metaProfileJob = defineJob<MetaProfilePayload>({
  name: 'messaging.meta-profile',
  handler: MetaProfileLookup,
  retry: { maxAttempts: META_PROFILE_ATTEMPTS, baseMs: 30_000, maxMs: 5 * 60_000 },
  leaseMs: 5 * 60_000,
});
