import { booleanSetting, intSetting, stringSetting, urlSetting } from '@engage/platform';

// The settings messaging reads (its manifest's `settings`): the delivery providers (chat app, Meta, SMS),
// inbound processing and the anon-key switch of chat-lite-send (the CDN is the platform's object storage).
export const MESSAGING_SETTINGS = {
  NOTIFY_URL: urlSetting({
    group: 'messaging',
    protocols: ['http:', 'https:'],
    requiredInProduction: true,
    description: 'base address of the chat-app delivery provider; unset uses the built-in sandbox provider (refused in production)',
  }),
  SEND_GAP_MIN_MS: intSetting({
    group: 'messaging',
    default: 800,
    min: 0,
    max: 60000,
    description: 'shortest randomized pause between the provider calls of one multi-attachment send',
  }),
  SEND_GAP_MAX_MS: intSetting({
    group: 'messaging',
    default: 2500,
    min: 0,
    max: 60000,
    description: 'longest randomized pause between the provider calls of one multi-attachment send (at least SEND_GAP_MIN_MS)',
  }),
  PROVIDER_TIMEOUT_MS: intSetting({ group: 'messaging', default: 15000, min: 100, max: 120000, description: 'time-out of one call to the delivery provider' }),
  INBOUND_POLL_MS: intSetting({
    group: 'messaging',
    default: 500,
    min: 10,
    max: 60000,
    description: 'how often the worker looks for stored inbound provider events written by other processes',
  }),
  INBOUND_RETENTION_DAYS: intSetting({
    group: 'messaging',
    default: 30,
    min: 1,
    max: 3650,
    description: 'days processed inbound provider events (inbound_events) are kept',
  }),
  META_APP_SECRET: stringSetting({
    group: 'messaging',
    sensitive: true,
    description: "the Meta app's secret: Messenger and Instagram webhook requests are verified with it (X-Hub-Signature-256)",
  }),
  META_VERIFY_TOKEN: stringSetting({
    group: 'messaging',
    sensitive: true,
    description: 'the verify token of the Meta webhook subscription handshake; unset: the Meta webhook answers 503',
  }),
  META_GRAPH_URL: urlSetting({
    group: 'messaging',
    protocols: ['http:', 'https:'],
    default: 'https://graph.facebook.com/v23.0',
    description: 'base address of the Graph API (Messenger and Instagram Send API)',
  }),
  SMS_API_URL: urlSetting({
    group: 'messaging',
    protocols: ['http:', 'https:'],
    default: 'https://api.twilio.com',
    description: 'base address of the Twilio-style Messages API that SMS channel accounts send through',
  }),
  EMAIL_IDLE_MS: intSetting({
    group: 'messaging',
    default: 25000,
    min: 0,
    max: 240000,
    description: 'how long a run of an email mailbox waits in IMAP IDLE for new mail after catching up (0: poll only, every 30 s)',
  }),
  EMAIL_MAX_PER_RUN: intSetting({
    group: 'messaging',
    default: 500,
    min: 1,
    max: 100000,
    description: 'at most this many mails are read from one mailbox per run (the next run continues)',
  }),
  ALLOW_ANON_SEND: booleanSetting({
    group: 'security',
    default: false,
    description: 'let the bare anon key call chat-lite-send (the anon key is public: keep false)',
  }),
};
