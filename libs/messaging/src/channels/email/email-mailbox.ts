import { randomUUID } from 'node:crypto';
import type { ImapFlow } from 'imapflow';
import type { RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox } from '@engage/platform';
import {
  ADVANCE_MAILBOX,
  EMAIL_CHANNEL_SECRET,
  type EmailChannelSecret,
  MAILBOX_FAILED,
  MAILBOX_SKIP,
  RELEASE_MAILBOX_LEASE,
  TAKE_MAILBOX_LEASE,
} from './email.sql';
import { mediaKindOf, parseEmail, type RawAttachment } from './email-parse';
import { describe, type EmailTransport } from './email-transport';
import type { EmailInbound, IncomingEmail } from './email-inbound';
import type { MediaStore } from '../../inbound/media-store.port';

export interface MailboxOptions {
  // How long a run waits in IDLE for new mail after catching up (0: catch up and stop). Servers without IDLE are polled by the schedule.
  idleMs: number;
  // At most this many mails per run, so one run cannot hold a worker for ever on a huge mailbox.
  maxMessages: number;
  // Mails fetched per IMAP command.
  batchSize: number;
}

export interface MailboxRun {
  outcome: 'read' | 'busy' | 'inactive';
  stored: number;
  duplicates: number;
  // UIDs passed over after failing SKIP_AFTER_RUNS runs in a row, and why the last one failed.
  skipped?: number[];
  warning?: string;
  error?: string;
}

// Reads one channel's INBOX: new mail since the UID high-water mark, oldest first, each mail stored
// and the mark moved in one transaction (a run stopped anywhere neither skips nor repeats a mail).
// A lease in email_mailboxes lets one reader at a time work on a mailbox; a run that dies leaves
// it to lapse. A changed UIDVALIDITY (the server renumbered the mailbox) starts again from UID 1,
// and the Message-IDs already stored keep that from storing anything twice.
export class EmailMailboxReader {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly transport: EmailTransport,
    private readonly inbound: EmailInbound,
    private readonly media: MediaStore,
    private readonly options: MailboxOptions,
  ) {}

  async read(organizationId: string, channelId: string, override: Partial<MailboxOptions> = {}): Promise<MailboxRun> {
    const options = { ...this.options, ...override };
    const ctx: RequestContext = { organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const token = randomUUID();
    const leaseMs = options.idleMs + 10 * 60_000;
    const [lease] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ uid_validity: string | null; last_uid: string }>(TAKE_MAILBOX_LEASE, [channelId, token, leaseMs]),
    );
    if (!lease) return { outcome: 'busy', stored: 0, duplicates: 0 };
    const run: MailboxRun = { outcome: 'read', stored: 0, duplicates: 0 };
    let client: ImapFlow | null = null;
    try {
      const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<EmailChannelSecret>(EMAIL_CHANNEL_SECRET, [channelId]));
      if (!channel?.is_active || !channel.email_settings || !channel.imap_password_sealed) return { ...run, outcome: 'inactive' };
      client = await this.transport.imap(channel.email_settings.imap, this.box.open(channel.imap_password_sealed));
      const lock = await client.getMailboxLock('INBOX');
      try {
        const mailbox = client.mailbox === false ? null : client.mailbox;
        const validity = String(mailbox?.uidValidity ?? 0);
        let last = lease.uid_validity === validity ? Number(lease.last_uid) : 0;
        const state = { ctx, channelId, token, leaseMs, validity };
        last = await this.catchUp(client, state, last, options, run);
        const until = Date.now() + options.idleMs;
        // IDLE where the server has it: new mail ("exists") wakes the run, which catches up again.
        while (options.idleMs > 0 && client.capabilities.has('IDLE') && run.stored + run.duplicates < options.maxMessages && Date.now() < until) {
          if (!(await newMail(client, until - Date.now()))) break;
          last = await this.catchUp(client, state, last, options, run);
        }
      } finally {
        lock.release();
      }
    } catch (error) {
      run.error = describe(error);
    } finally {
      await client?.logout().catch(() => client?.close());
      await this.db.inTenant(ctx, (tx) => tx.query(RELEASE_MAILBOX_LEASE, [channelId, token, run.error ?? run.warning ?? null]));
    }
    return run;
  }

  private async catchUp(client: ImapFlow, state: State, last: number, options: MailboxOptions, run: MailboxRun): Promise<number> {
    for (;;) {
      const budget = options.maxMessages - run.stored - run.duplicates;
      if (budget <= 0) return last;
      // "n:*" always names the newest mail, even when its UID is below n: filtered out here.
      const found = await client.search({ uid: `${last + 1}:*` }, { uid: true });
      const uids = (found || [])
        .filter((uid) => uid > last)
        .sort((a, b) => a - b)
        .slice(0, Math.min(budget, options.batchSize));
      if (uids.length === 0) return last;
      const sources: Array<{ uid: number; source: Buffer }> = [];
      for await (const message of client.fetch(uids.join(','), { uid: true, source: true }, { uid: true })) {
        if (message.source) sources.push({ uid: message.uid, source: message.source });
      }
      sources.sort((a, b) => a.uid - b.uid);
      for (const { uid, source } of sources) {
        try {
          await this.storeOne(state, uid, source, run);
        } catch (error) {
          const reason = error instanceof LeaseLost ? null : await this.skipAfterFailures(state, uid, error);
          if (!reason) throw error;
          run.skipped = [...(run.skipped ?? []), uid];
          run.warning = reason;
        }
        last = uid;
      }
      // A UID listed but gone before the fetch (expunged meanwhile) is passed over.
      last = Math.max(last, uids[uids.length - 1]);
    }
  }

  private async storeOne(state: State, uid: number, source: Buffer, run: MailboxRun): Promise<void> {
    const { mail, attachments } = await parseEmail(source, `imap:${state.validity}:${uid}`);
    const media = await this.rehost(state.ctx.organizationId, attachments);
    const outcome = await this.db.inTenant(state.ctx, async (tx) => {
      const [moved] = await tx.query(ADVANCE_MAILBOX, [state.channelId, state.token, state.validity, uid, state.leaseMs]);
      if (!moved) throw new LeaseLost();
      return this.inbound.store(tx, state.ctx, state.channelId, { ...mail, media });
    });
    if (outcome === 'stored') run.stored++;
    else run.duplicates++;
  }

  // A mail that failed to store in SKIP_AFTER_RUNS runs in a row (one the parser or the database
  // refuses every time) is passed over with its reason in last_error, so it cannot stop the mailbox.
  private async skipAfterFailures(state: State, uid: number, error: unknown): Promise<string | null> {
    return this.db.inTenant(state.ctx, async (tx) => {
      const [failed] = await tx.query<{ failed_runs: number }>(MAILBOX_FAILED, [state.channelId, state.token, uid]);
      if (!failed || failed.failed_runs < SKIP_AFTER_RUNS) return null;
      const reason = `UID ${uid} skipped after ${failed.failed_runs} failed runs: ${describe(error)}`.slice(0, 1000);
      const [moved] = await tx.query(MAILBOX_SKIP, [state.channelId, state.token, state.validity, uid, reason]);
      return moved ? reason : null;
    });
  }

  // Attachments go to the platform's object storage, as other channels' media; one that cannot be
  // stored is listed with its reason and the mail is kept.
  private async rehost(organizationId: string, attachments: RawAttachment[]): Promise<IncomingEmail['media']> {
    const media: IncomingEmail['media'] = [];
    for (const a of attachments) {
      const base = { kind: mediaKindOf(a.contentType), filename: a.filename, content_type: a.contentType };
      try {
        media.push({ ...base, url: await this.media.put(organizationId, a.bytes, a.contentType) });
      } catch (error) {
        media.push({ ...base, url: null, rehost_error: describe(error) });
      }
    }
    return media;
  }
}

export const SKIP_AFTER_RUNS = 3;

class LeaseLost extends Error {
  constructor() {
    super('the mailbox lease was lost; another reader continues');
  }
}

type State = { ctx: RequestContext; channelId: string; token: string; leaseMs: number; validity: string };

// Waits in IDLE until the server announces new mail or the time is up; answers whether mail came.
function newMail(client: ImapFlow, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      client.off('exists', onExists);
      client.off('close', onClose);
      resolve(value);
    };
    const onExists = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), Math.max(0, ms));
    client.on('exists', onExists);
    client.on('close', onClose);
    void client.idle().catch(() => done(false));
  });
}
