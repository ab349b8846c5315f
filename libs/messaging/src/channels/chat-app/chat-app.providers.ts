import { ContactService } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import type { ChannelModule } from '../channel';
import { ChatAppAdapter } from './chat-app.adapter';
import { MESSAGING_PROVIDER, type MessagingProvider } from './messaging-provider.port';

// The chat app (§4.1, §4.2): its adapter over the provider of the module's ProviderHolder.
export const CHAT_APP_CHANNEL: ChannelModule = {
  adapters: ChatAppAdapter,
  providers: [
    {
      provide: ChatAppAdapter,
      inject: [MESSAGING_PROVIDER, OrganizationSettings, ContactService],
      useFactory: (provider: MessagingProvider, settings: OrganizationSettings, contacts: ContactService) => new ChatAppAdapter(provider, settings, contacts),
    },
  ],
};
