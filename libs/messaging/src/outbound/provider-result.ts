// What a provider answered to one call, and its refusal, whatever the channel (every adapter's
// delivery answers or throws these).
// What the provider answered (§4.1 `result`), plus the message id it assigned when it gave one.
export interface ProviderResult {
  status: unknown;
  message: unknown;
  externalId: string | null;
  raw: Record<string, unknown>;
}

// A provider's refusal or failure, with a message fit for the caller. `rateLimited`: the provider
// said it throttles the sender (HTTP 429, or a throttling code in another status), which pauses
// the account's paced queue at once.
export class ProviderError extends Error {
  readonly rateLimited: boolean;

  constructor(
    message: string,
    readonly httpStatus: number | null,
    options: { rateLimited?: boolean } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.rateLimited = options.rateLimited ?? httpStatus === 429;
  }
}
