import type { Provider } from '@nestjs/common';
import { Database } from '@engage/platform';
import { OutboundDispatcher, SendFailed } from './dispatcher';
import { SCHEDULED_DELIVERY, type ScheduledDelivery } from './scheduled-delivery';
import { ScheduledMessageService } from './scheduled-message.service';
import { ScheduledSendPass } from './scheduled-send.job';

// The one place a scheduled message meets the send path: the inbox's reply path (the dispatcher, by
// conversation), written by its author with origin `scheduled` and origin_id the scheduled message.
export function deliverThroughReplyPath(dispatcher: OutboundDispatcher): ScheduledDelivery {
  return async (ctx, conversationId, reply) => {
    const sent = await dispatcher.send(ctx, { conversationId }, reply);
    if (sent.failure !== null) throw new SendFailed(sent.failure, sent.messages);
    return { messageIds: sent.messageIds };
  };
}

// Scheduled sends in the messaging module: the service of the endpoints, the pass of the
// `messaging.scheduled-send-pass` schedule (exported by the module, so the job runner finds it).
export const SCHEDULED_MESSAGE_PROVIDERS: Provider[] = [
  { provide: SCHEDULED_DELIVERY, inject: [OutboundDispatcher], useFactory: deliverThroughReplyPath },
  { provide: ScheduledMessageService, inject: [Database], useFactory: (db: Database) => new ScheduledMessageService(db) },
  {
    provide: ScheduledSendPass,
    inject: [Database, SCHEDULED_DELIVERY],
    useFactory: (db: Database, delivery: ScheduledDelivery) => new ScheduledSendPass(db, delivery),
  },
];
