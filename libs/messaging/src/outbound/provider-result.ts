// What a provider answered to one call, and its refusal, whatever the channel (every adapter's
// delivery answers or throws these).
// What the provider answered (§4.1 `result`), plus the message id it assigned when it gave one.
export interface ProviderResult {
  status: unknown;
  message: unknown;
  externalId: string | null;
  raw: Record<string, unknown>;
}

// A provider's refusal or failure, with a message fit for the caller.
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
