import type { ProviderBody } from '../domain/provider-calls';

// What the provider answered (§4.1 `result`), plus the message id it assigned when it gave one.
export interface ProviderResult {
  status: unknown;
  message: unknown;
  externalId: string | null;
  raw: Record<string, unknown>;
}

// The delivery provider of §4.2. Implementations throw ProviderError with a message fit for the caller.
export interface MessagingProvider {
  send(organizationId: string, apiKey: string, body: ProviderBody): Promise<ProviderResult>;
}

export const MESSAGING_PROVIDER = Symbol('MESSAGING_PROVIDER');

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
