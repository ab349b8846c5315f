import type pino from 'pino';
import { ContactService } from '@engage/crm';
import { CONFIG, type Config, Database, PLATFORM_LOG, SecretBox, settingsOf } from '@engage/platform';
import { systemClock } from '@engage/shared-kernel';
import { InboundSignal } from '../../inbound/inbound-receiver';
import { MESSAGING_SETTINGS } from '../../messaging.settings';
import { ChannelAdapters } from '../../outbound/channel-adapter.port';
import type { ChannelModule } from '../channel';
import { GraphProfileApi } from './graph-profile-api';
import { GraphSendApi } from './graph-send-api';
import { MetaAdapter } from './meta.adapter';
import { MetaInbound } from './meta-inbound';
import { MetaProfileLookup } from './meta-profile.job';
import { SocialInbound } from './social-inbound';

export const META_ADAPTERS = Symbol('META_ADAPTERS');
const graphUrl = (config: Config) => settingsOf(config, MESSAGING_SETTINGS).META_GRAPH_URL ?? 'https://graph.facebook.com/v23.0';

// Messenger and Instagram: their adapters over the Graph API's Send API, the webhook's receiver,
// the inbound batch's social part and the profile look-up job.
export const META_CHANNEL: ChannelModule = {
  adapters: META_ADAPTERS,
  providers: [
    {
      provide: META_ADAPTERS,
      inject: [Database, SecretBox, CONFIG],
      useFactory: (db: Database, box: SecretBox, config: Config) => {
        const graph = new GraphSendApi(graphUrl(config), settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS);
        return (['messenger', 'instagram'] as const).map((kind) => new MetaAdapter(kind, db, box, graph, systemClock));
      },
    },
    {
      provide: SocialInbound,
      inject: [ContactService, ChannelAdapters],
      useFactory: (contacts: ContactService, adapters: ChannelAdapters) => new SocialInbound(contacts, (kind) => adapters.capabilitiesOf(kind)),
    },
    // Handler of the messaging.meta-profile job (run by the platform's job runner in workers).
    {
      provide: MetaProfileLookup,
      inject: [Database, ContactService, SecretBox, CONFIG, PLATFORM_LOG],
      useFactory: (db: Database, contacts: ContactService, box: SecretBox, config: Config, log: pino.Logger) => {
        const graph = new GraphProfileApi(graphUrl(config), settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS);
        return new MetaProfileLookup(db, contacts, box, graph, (fields, line) => log.warn(fields, line));
      },
    },
    {
      provide: MetaInbound,
      inject: [Database, InboundSignal, CONFIG, PLATFORM_LOG],
      useFactory: (db: Database, signal: InboundSignal, config: Config, log: pino.Logger) => {
        const s = settingsOf(config, MESSAGING_SETTINGS);
        return new MetaInbound(db, signal, { appSecret: s.META_APP_SECRET, verifyToken: s.META_VERIFY_TOKEN }, (fields, line) => log.info(fields, line));
      },
    },
  ],
};
