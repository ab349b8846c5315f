import { DomainError, isUuid, Unauthorized } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { type InboundPayload, parseInboundPayload } from './inbound-payload';
import { hashToken, tokenMatches } from '../conversations/channel-account.service';
import { InboundWriter } from './inbound-writer';

// Wakes the worker of this process at once (others find the event by polling).
export class InboundSignal {
  private listener: (() => void) | undefined;
  onStored(listener: () => void): void {
    this.listener = listener;
  }
  stored(): void {
    this.listener?.();
  }
}

const refused = () => Unauthorized('invalid_channel_token', 'Unknown channel or wrong token');

// §4.3, the fast half: authenticate the channel, check the payload, store it raw, acknowledge.
// A valid payload costs one statement (credentials checked and event stored together, grouped
// with the requests arriving at the same time), no transaction; the worker does the rest. An
// invalid one is still authenticated first, so an unauthenticated caller always gets the same 401.
export class InboundReceiver {
  private readonly writer: InboundWriter;

  constructor(
    db: Database,
    private readonly signal: InboundSignal,
  ) {
    this.writer = new InboundWriter(db);
  }

  async receive(channelId: string, token: string | undefined, body: unknown): Promise<{ received: true; id: string }> {
    if (!isUuid(channelId) || token === undefined) throw refused();
    let payload: InboundPayload | undefined;
    let invalid: unknown;
    try {
      payload = parseInboundPayload(body);
    } catch (error) {
      invalid = error;
    }
    const ok = token.length > 0 && token.length <= 200;
    const channel = await this.writer.write({
      channelId,
      tokenHash: ok ? hashToken(token) : null,
      payload: payload === undefined ? null : JSON.stringify(payload),
    });
    if (!channel || !tokenMatches(token, channel.inbound_token_hash)) throw refused();
    if (!channel.is_active) throw new DomainError('forbidden', 'channel_inactive', 'This channel account is not active');
    if (payload === undefined) throw invalid;
    if (channel.id === null) throw new Error('inbound event was not stored');
    this.signal.stored();
    return { received: true, id: String(channel.id) };
  }
}
