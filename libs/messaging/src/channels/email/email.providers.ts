import type { Provider } from '@nestjs/common';
import { ContactService } from '@engage/crm';
import type pino from 'pino';
import { CONFIG, type Config, createOutboundClient, Database, PLATFORM_LOG, SecretBox, settingsOf } from '@engage/platform';
import { EmailAdapter } from './email.adapter';
import { EmailInbound } from './email-inbound';
import { EmailMailboxJob, EmailPollTick } from './email-jobs';
import { EmailMailboxReader } from './email-mailbox';
import { createMediaFetcher } from '../../inbound/media-fetcher';
import { EmailTransport } from './email-transport';
import { ObjectMediaStore } from '../../inbound/object-media-store';
import { MESSAGING_SETTINGS } from '../../messaging.settings';
import type { ChannelModule } from '../channel';

// The email channel: connections to customers' mail servers (vetted as every outbound call), the
// adapter that replies, and the mailbox reader with the jobs that run it.
const EMAIL_PROVIDERS: Provider[] = [
  {
    provide: EmailTransport,
    inject: [CONFIG],
    useFactory: (config: Config) => {
      const timeoutMs = settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS;
      return new EmailTransport(createOutboundClient(config, { keepAlive: false }), config.OUTBOUND_ALLOW_HOSTS, timeoutMs);
    },
  },
  {
    provide: EmailAdapter,
    inject: [Database, SecretBox, EmailTransport, ContactService, CONFIG, PLATFORM_LOG],
    useFactory: (db: Database, box: SecretBox, transport: EmailTransport, contacts: ContactService, config: Config, log: pino.Logger) => {
      const fetch = createMediaFetcher({ allowHosts: config.OUTBOUND_ALLOW_HOSTS, timeoutMs: settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS });
      return new EmailAdapter(db, box, transport, contacts, fetch, (fields, line) => log.info(fields, line));
    },
  },
  { provide: EmailInbound, inject: [ContactService], useFactory: (contacts: ContactService) => new EmailInbound(contacts) },
  {
    provide: EmailMailboxReader,
    inject: [Database, SecretBox, EmailTransport, EmailInbound, ObjectMediaStore, CONFIG],
    useFactory: (db: Database, box: SecretBox, transport: EmailTransport, inbound: EmailInbound, media: ObjectMediaStore, config: Config) => {
      const s = settingsOf(config, MESSAGING_SETTINGS);
      return new EmailMailboxReader(db, box, transport, inbound, media, { idleMs: s.EMAIL_IDLE_MS, maxMessages: s.EMAIL_MAX_PER_RUN, batchSize: 50 });
    },
  },
  {
    provide: EmailMailboxJob,
    inject: [EmailMailboxReader, PLATFORM_LOG],
    useFactory: (reader: EmailMailboxReader, log: pino.Logger) => new EmailMailboxJob(reader, (fields, line) => log.warn(fields, line)),
  },
  { provide: EmailPollTick, inject: [Database], useFactory: (db: Database) => new EmailPollTick(db) },
];

export const EMAIL_CHANNEL: ChannelModule = { adapters: EmailAdapter, providers: EMAIL_PROVIDERS };
