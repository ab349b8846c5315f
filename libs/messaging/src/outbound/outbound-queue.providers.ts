import type { Provider } from '@nestjs/common';
import { ContactService } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import { Database } from '@engage/platform';
import { ChannelPacingService } from './channel-pacing.service';
import { OutboundDispatcher } from './dispatcher';
import { OutboundQueueService } from './outbound-queue.service';
import { OutboundSignal } from './queue.worker';
import { QueuedSendService } from './queued-send.service';

// The queue's endpoints in the messaging module: the queued send, the queue's view, and each
// account's pacing and pause (a change wakes this process's queue worker).
export const OUTBOUND_QUEUE_PROVIDERS: Provider[] = [
  {
    provide: QueuedSendService,
    inject: [Database, ContactService, OutboundDispatcher],
    useFactory: (db: Database, contacts: ContactService, dispatcher: OutboundDispatcher) => new QueuedSendService(db, contacts, dispatcher),
  },
  {
    provide: OutboundQueueService,
    inject: [Database, OrganizationSettings],
    useFactory: (db: Database, settings: OrganizationSettings) => new OutboundQueueService(db, settings),
  },
  {
    provide: ChannelPacingService,
    inject: [Database, OutboundSignal],
    useFactory: (db: Database, signal: OutboundSignal) => new ChannelPacingService(db, () => signal.queued()),
  },
];
