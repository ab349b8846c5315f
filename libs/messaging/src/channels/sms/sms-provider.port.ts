import type { ProviderResult } from '../../outbound/provider-result';

export interface SmsCredentials {
  accountSid: string;
  authToken: string;
}

export interface SmsMessage {
  to: string;
  from: string;
  body: string;
  // Where the provider posts the message's status changes.
  statusCallback: string;
}

// The SMS provider (a Twilio-style Messages API). send throws ProviderError with words fit for the
// caller; check never throws.
export interface SmsProvider {
  send(credentials: SmsCredentials, message: SmsMessage): Promise<ProviderResult>;
  check(credentials: SmsCredentials): Promise<{ ok: boolean; error?: string }>;
}
