import { OutboundError, type OutboundClient } from '@engage/platform';
import { DomainError } from '@engage/shared-kernel';

// A recording_url is stored as given and fetched later (transcription), so it is held to the
// SSRF-safe client's rules now: https only, no IP literal, a host whose every address is public
// (private, loopback, link-local and the like are refused), resolved through the client.
export async function vetRecordingUrl(client: OutboundClient, url: string): Promise<string> {
  try {
    await client.vet(url);
    return url;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new DomainError('validation', 'call.invalid_recording_url', `recording_url refused: ${error.message}`, { reason: error.code });
  }
}
