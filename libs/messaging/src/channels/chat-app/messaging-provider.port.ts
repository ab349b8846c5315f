import type { ProviderResult } from '../../outbound/provider-result';
import type { ProviderBody } from './provider-calls';

// The delivery provider of §4.2. Implementations throw ProviderError with a message fit for the caller.
export interface MessagingProvider {
  send(organizationId: string, apiKey: string, body: ProviderBody): Promise<ProviderResult>;
}

export const MESSAGING_PROVIDER = Symbol('MESSAGING_PROVIDER');
