import { DomainError, isUuid, Unauthorized } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { parseInboundPayload } from '../domain/inbound-payload';
import { SYSTEM_STORE_INBOUND } from '../infrastructure/inbound.sql';
import { SYSTEM_CHANNEL_TOKEN } from '../infrastructure/messaging.sql';
import { tokenMatches } from './channel-account.service';

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

// §4.3, the fast half: authenticate the channel, check the payload, store it raw, acknowledge.
// Two statements and no transaction; the worker does the rest.
export class InboundReceiver {
  constructor(
    private readonly db: Database,
    private readonly signal: InboundSignal,
  ) {}

  async receive(channelId: string, token: string | undefined, body: unknown): Promise<{ received: true; id: string }> {
    const refused = Unauthorized('invalid_channel_token', 'Unknown channel or wrong token');
    if (!isUuid(channelId) || token === undefined) throw refused;
    const [channel] = await this.db.systemQuery<{ organization_id: string; inbound_token_hash: Buffer | null; is_active: boolean }>(SYSTEM_CHANNEL_TOKEN, [channelId]);
    if (!channel || !tokenMatches(token, channel.inbound_token_hash)) throw refused;
    if (!channel.is_active) throw new DomainError('forbidden', 'channel_inactive', 'This channel account is not active');
    const payload = parseInboundPayload(body);
    const [row] = await this.db.systemQuery<{ id: string }>(SYSTEM_STORE_INBOUND, [channel.organization_id, channelId, JSON.stringify(payload)]);
    this.signal.stored();
    return { received: true, id: String(row.id) };
  }
}
