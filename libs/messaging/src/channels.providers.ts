import type { Provider } from '@nestjs/common';
import { ContactService } from '@engage/crm';
import { ChatAppAdapter } from './application/adapters/chat-app.adapter';
import { ChannelAdapters } from './application/channel-adapter.port';
import { SendService } from './application/send.service';

// The channel adapters of the messaging context (kept apart from the module so adding a kind does
// not touch its wiring).
export const CHANNEL_PROVIDERS: Provider[] = [
  { provide: ChatAppAdapter, inject: [SendService, ContactService], useFactory: (sends: SendService, contacts: ContactService) => new ChatAppAdapter(sends, contacts) },
  { provide: ChannelAdapters, inject: [ChatAppAdapter], useFactory: (chatApp: ChatAppAdapter) => new ChannelAdapters([chatApp]) },
];
