import type { Readable } from 'node:stream';
import { type ObjectStorage, OutboundError, type OutboundClient } from '@engage/platform';
import type { CallRow, RecordingReader } from '../application/call-processor';
import { ProviderError, type Recording } from '../application/providers';

// A little over the 50 MB upload limit: a recording read back is never larger than what was taken.
export const MAX_RECORDING_BYTES = 52 * 1024 * 1024;

// Reads a recording back from where it is: from the object storage by its key when the storage can
// read (the local stand-in), else from its address through the SSRF-safe client (the CDN's URL, or
// a recording_url the caller gave, stored as given).
export class StoredRecordingReader implements RecordingReader {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly outbound: OutboundClient,
  ) {}

  async read(row: CallRow): Promise<Recording> {
    const contentType = row.recording_content_type ?? 'application/octet-stream';
    const filename = nameOf(row);
    if (row.recording_key && this.storage.read) {
      const stored = await this.storage.read(row.recording_key);
      if (!stored) throw new ProviderError('the stored recording is missing', false);
      if (stored.bytes > MAX_RECORDING_BYTES) {
        stored.body.destroy();
        throw new ProviderError(`the stored recording is larger than ${MAX_RECORDING_BYTES} bytes`, false);
      }
      return { bytes: await collect(stored.body), filename, contentType };
    }
    if (!row.recording_url) throw new ProviderError('the call record has no recording', false);
    try {
      const response = await this.outbound.request({ url: row.recording_url, method: 'GET', maxBodyBytes: MAX_RECORDING_BYTES + 1, timeoutMs: 300_000 });
      if (response.truncated) throw new ProviderError(`the recording at its address is larger than ${MAX_RECORDING_BYTES} bytes`, false);
      if (response.status < 200 || response.status > 299) {
        throw new ProviderError(`the recording's address answered ${response.status}`, response.status >= 500 || response.status === 429);
      }
      const type = typeof response.headers['content-type'] === 'string' ? response.headers['content-type'].split(';')[0].trim() : '';
      return { bytes: response.body, filename, contentType: row.recording_content_type ?? (type || contentType) };
    } catch (error) {
      if (error instanceof OutboundError) throw new ProviderError(`the recording cannot be fetched: ${error.message}`, !error.blocked);
      throw error;
    }
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_RECORDING_BYTES) {
      stream.destroy();
      throw new ProviderError(`the stored recording is larger than ${MAX_RECORDING_BYTES} bytes`, false);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

// The file name the provider sees: its extension is how OpenAI-compatible APIs tell the format.
function nameOf(row: CallRow): string {
  const from = row.recording_key ?? (row.recording_url ? safePath(row.recording_url) : '');
  const ext = /\.([A-Za-z0-9]{2,4})$/.exec(from)?.[1]?.toLowerCase();
  return `${row.id}.${ext ?? 'mp3'}`;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
