import { timingSafeEqual } from 'node:crypto';
import { DomainError, Unauthorized } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { metaSignatureMatches, parseMetaWebhook } from './meta-webhook';
import { MetaEventWriter } from './meta-event-writer';
import type { InboundSignal } from '../../inbound/inbound-receiver';

export interface MetaAppSettings {
  appSecret: string | undefined;
  verifyToken: string | undefined;
}

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

// §4.3 for Messenger and Instagram: the installation's Meta app posts every page's events to one
// address. The signature is checked over the raw bytes before anything is parsed; the events are
// stored (routed to the channel account holding the page or Instagram id) before the 200, and the
// inbound worker does the rest, as for the chat app.
export class MetaInbound {
  private readonly writer: MetaEventWriter;

  constructor(
    db: Database,
    private readonly signal: InboundSignal,
    private readonly settings: MetaAppSettings,
    private readonly log: (fields: Record<string, unknown>, line: string) => void,
  ) {
    this.writer = new MetaEventWriter(db);
  }

  private configured(): { appSecret: string; verifyToken: string } {
    const { appSecret, verifyToken } = this.settings;
    if (!appSecret || !verifyToken) throw new DomainError('unavailable', 'meta.not_configured', 'Messenger and Instagram are not configured on this server');
    return { appSecret, verifyToken };
  }

  // The subscription handshake: echo hub.challenge when the verify token is ours.
  handshake(query: Record<string, unknown>): string {
    const { verifyToken } = this.configured();
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    const ok = query['hub.mode'] === 'subscribe' && typeof token === 'string' && sameText(token, verifyToken);
    if (!ok || typeof challenge !== 'string' || !/^[\w.-]{1,200}$/.test(challenge)) {
      throw new DomainError('forbidden', 'meta.verification_failed', 'Wrong verify token or handshake');
    }
    return challenge;
  }

  async receive(raw: Buffer, signature: string | undefined): Promise<{ received: true; stored: number }> {
    const { appSecret } = this.configured();
    if (!metaSignatureMatches(raw, signature, appSecret)) {
      const why = signature === undefined ? 'The X-Hub-Signature-256 header is missing' : 'The signature does not match the body';
      throw Unauthorized('meta.invalid_signature', why);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new DomainError('validation', 'invalid_json', 'The body is not JSON');
    }
    const events = parseMetaWebhook(body);
    if (events.length === 0) return { received: true, stored: 0 };
    const stored = await this.writer.write(events);
    const dropped = [...new Set(events.filter((_e, i) => !stored[i]).map((e) => `${e.kind}:${e.accountId}`))];
    // Acknowledged all the same: Meta retries (and eventually disables the app) on errors.
    if (dropped.length > 0) this.log({ accounts: dropped }, 'meta webhook: events for accounts no active channel account holds were dropped');
    const count = stored.filter(Boolean).length;
    if (count > 0) this.signal.stored();
    return { received: true, stored: count };
  }
}
