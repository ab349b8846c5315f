import type { InjectionToken, Provider } from '@nestjs/common';

// One channel folder as the messaging module sees it: its Nest providers and the token of its
// adapters (one adapter, or an array of them, e.g. Messenger and Instagram). Adding a channel is a
// folder exporting one of these and one entry in CHANNELS (channels.providers.ts).
export interface ChannelModule {
  providers: Provider[];
  adapters: InjectionToken;
}
