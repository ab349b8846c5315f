import { executeRead, registryFor } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { BROADCAST_KINDS, type BroadcastKind } from '../domain/content';
import type { Tables } from './data-api-tables';

export interface BroadcastAccount {
  id: string;
  kind: BroadcastKind;
}

// The channel account a broadcast, a sequence or a text preview names, read as /rest/v1/channel_accounts serves
// it to the caller (messaging's published read surface): 404 when the caller does not see it, 422
// when it is not a kind campaigns go out on.
export async function broadcastAccount(
  tx: Tx,
  ctx: RequestContext,
  tables: Tables,
  id: unknown,
  path = 'channel_account_id',
  what: 'broadcasts' | 'sequences' = 'broadcasts',
): Promise<BroadcastAccount> {
  if (!isUuid(id)) throw new DomainError('validation', 'campaigns.invalid_channel_account_id', `${path}: must be a UUID`, { path });
  const registry = registryFor(tables(), ctx.role === 'SYSTEM' ? 'OWNER' : ctx.role);
  if (!registry.tables.has('channel_accounts'))
    throw new DomainError('unavailable', 'campaigns.channels_unavailable', 'channel accounts are not served in this process');
  const response = await executeRead(tx, registry, { method: 'GET', table: 'channel_accounts', query: 'select=id,kind', headers: {}, ids: [id.toLowerCase()] });
  const [row] = JSON.parse(response.body) as { id: string; kind: string }[];
  if (!row) throw NotFound('channel_account', id);
  if (!(BROADCAST_KINDS as readonly string[]).includes(row.kind)) {
    throw new DomainError(
      'unprocessable',
      'campaigns.channel_not_supported',
      `A ${row.kind} channel account cannot send ${what}: choose a chat_app or sms account`,
      { kind: row.kind },
    );
  }
  return { id: row.id, kind: row.kind as BroadcastKind };
}
