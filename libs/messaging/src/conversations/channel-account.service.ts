import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError, NotFound, isUuid, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox } from '@engage/platform';
import { isAllowed, ORGANIZATION_SETTINGS_MANAGE } from '@engage/identity';
import { CHANNEL_KINDS, isChannelKind } from '../domain/statuses';
import {
  type ChannelAccountRow,
  INSERT_CHANNEL,
  INSERT_META_CHANNEL,
  CHANNEL_BY_ID,
  CHANNEL_KIND,
  LIST_CHANNELS,
  SET_CHANNEL_ACTIVE,
  SET_CHANNEL_TOKEN,
} from '../infrastructure/messaging.sql';
import { parseMetaAccount } from '../domain/channel-setup';
import { parseSmsAccount } from '../channels/sms/sms';
import { INSERT_SMS_CHANNEL } from '../channels/sms/sms.sql';
import { type EmailAccountInput, parseEmailAccount } from '../channels/email/email-setup';
import { INSERT_EMAIL_CHANNEL } from '../channels/email/email.sql';
import { CHANNEL_CAPABILITIES } from '../domain/channel-capabilities';
import type { ChannelAdapters } from '../outbound/channel-adapter.port';

export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

// Constant-time comparison of a presented token with the stored hash.
export function tokenMatches(presented: string, storedHash: Buffer | null): boolean {
  if (!storedHash || presented.length === 0 || presented.length > 200) return false;
  return timingSafeEqual(hashToken(presented), storedHash);
}

const assertManager = (ctx: RequestContext) => {
  if (ctx.role !== 'API_KEY' && ctx.role !== 'SYSTEM' && !isAllowed(ctx.role, ORGANIZATION_SETTINGS_MANAGE)) {
    throw new DomainError('forbidden', 'insufficient_role', `Role ${ctx.role} may not manage channel accounts`);
  }
};

export interface ChannelWithToken {
  channel_account: ChannelAccountRow;
  // Shown once; only its hash is stored. Meta channels have none: Meta signs its requests.
  inbound_token?: string;
  // Absent for email channels: their mailbox is read over IMAP.
  inbound_path?: string;
  email?: EmailSettingsView;
}

type EmailSettingsView = { address: string; imap: Omit<EmailAccountInput['imap'], 'password'>; smtp: Omit<EmailAccountInput['smtp'], 'password'> };

// Vets a customer-given mail server before it is stored (the outbound rules; connections vet again).
export type HostCheck = (host: string, field: string) => Promise<void>;

export type ChannelInput = { kind?: unknown; name?: unknown } & Record<string, unknown>;

// Another organization (or this one) already connected that page or Instagram account.
const ALREADY_CONNECTED = {
  unique: () => new DomainError('conflict', 'channel.already_connected', 'This page, Instagram account or mailbox is already connected to a channel account'),
};

const NUMBER_CONNECTED = {
  unique: () => new DomainError('conflict', 'channel.already_connected', 'This sender number is already connected to a channel account'),
};

// Channel accounts and the secret token each presents on the inbound receiver.
export class ChannelAccountService {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly adapters: ChannelAdapters,
    private readonly checkHost: HostCheck = async () => undefined,
  ) {}

  // The stored credentials tried against the provider (onboarding's channel step).
  async check(ctx: RequestContext, id: string): Promise<{ ok: boolean; error?: string }> {
    assertManager(ctx);
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [id]));
    if (!channel) throw NotFound('channel_account', id);
    return this.adapters.check(ctx, channel);
  }

  async create(ctx: RequestContext, input: ChannelInput): Promise<ChannelWithToken> {
    assertManager(ctx);
    if (!isChannelKind(input.kind)) throw new DomainError('validation', 'validation_failed', `kind must be one of ${CHANNEL_KINDS.join(', ')}`);
    if (typeof input.name !== 'string' || input.name.trim().length === 0 || input.name.length > 200) {
      throw new DomainError('validation', 'validation_failed', 'name must be 1 to 200 characters');
    }
    const meta = parseMetaAccount(input.kind, input);
    if (meta) {
      // The token is sealed before it is stored and never returned.
      const params = [input.kind, input.name.trim(), meta.accountId, this.box.seal(meta.accessToken)];
      const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(INSERT_META_CHANNEL, params, { violations: ALREADY_CONNECTED }));
      return { channel_account: row, inbound_path: '/functions/v1/meta-webhook' };
    }
    const sms = parseSmsAccount(input.kind, input);
    if (sms) {
      // The auth token is sealed like a page token; the provider signs its callbacks with it.
      const params = [input.name.trim(), sms.fromNumber, sms.accountSid, this.box.seal(sms.authToken)];
      const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(INSERT_SMS_CHANNEL, params, { violations: NUMBER_CONNECTED }));
      return { channel_account: row, inbound_path: `/functions/v1/sms-webhook/${row.id}` };
    }
    const email = parseEmailAccount(input.kind, input);
    if (email) return this.createEmail(ctx, input.name.trim(), email);
    const token = newToken();
    const [row] = await this.db.inTenant(ctx, (tx) =>
      tx.query<ChannelAccountRow>(INSERT_CHANNEL, [input.kind, (input.name as string).trim(), hashToken(token)]),
    );
    return withToken(row, token);
  }

  // The passwords are sealed before they are stored and never returned; the rest is shown.
  private async createEmail(ctx: RequestContext, name: string, input: EmailAccountInput): Promise<ChannelWithToken> {
    await this.checkHost(input.imap.host, 'imap.host');
    await this.checkHost(input.smtp.host, 'smtp.host');
    const { password: imapPassword, ...imap } = input.imap;
    const { password: smtpPassword, ...smtp } = input.smtp;
    const settings: EmailSettingsView = { address: input.address, imap, smtp };
    const params = [name, input.address, JSON.stringify(settings), this.box.seal(imapPassword), this.box.seal(smtpPassword)];
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(INSERT_EMAIL_CHANNEL, params, { violations: ALREADY_CONNECTED }));
    return { channel_account: row, email: settings };
  }

  async rotateToken(ctx: RequestContext, id: string): Promise<ChannelWithToken> {
    assertManager(ctx);
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const token = newToken();
    const row = await this.db.inTenant(ctx, async (tx) => {
      const [found] = await tx.query<{ kind: string }>(CHANNEL_KIND, [id]);
      if (!found) throw NotFound('channel_account', id);
      // Only a receiver addressed by the account's own token has one to rotate.
      if (!(isChannelKind(found.kind) && CHANNEL_CAPABILITIES[found.kind].inboundToken)) {
        throw new DomainError(
          'validation',
          'channel.no_inbound_token',
          `A ${found.kind} channel account has no inbound token: its provider's signature authenticates what it sends`,
        );
      }
      const [updated] = await tx.query<ChannelAccountRow>(SET_CHANNEL_TOKEN, [id, hashToken(token)]);
      return updated;
    });
    return withToken(row, token);
  }

  async setActive(ctx: RequestContext, id: string, active: boolean): Promise<ChannelAccountRow> {
    assertManager(ctx);
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(SET_CHANNEL_ACTIVE, [id, active]));
    if (!row) throw NotFound('channel_account', id);
    return row;
  }

  list(ctx: RequestContext): Promise<ChannelAccountRow[]> {
    return this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(LIST_CHANNELS));
  }
}

const newToken = () => `chs_${randomBytes(32).toString('base64url')}`;
const withToken = (row: ChannelAccountRow, token: string): ChannelWithToken => ({
  channel_account: row,
  inbound_token: token,
  inbound_path: `/functions/v1/chat-lite-webhook/${row.id}`,
});
