import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage, OutboundClient } from '@engage/platform';
import type { CallRow, RecordingReader } from '../application/call-processor';
import { ProviderError, type Recording } from '../application/providers';
import { asProviderError, openDownload } from './streamed-download';

// A little over the 50 MB upload limit: a recording read back is never larger than what was taken.
export const MAX_RECORDING_BYTES = 52 * 1024 * 1024;

// Copies a recording from where it is into a file under `dir`, streamed: from the object storage by
// its key (the CDN or the local stand-in), else from its address through the SSRF-safe client (a
// recording_url the caller gave, stored as given). Either is cut off past MAX_RECORDING_BYTES.
export class StoredRecordingReader implements RecordingReader {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly outbound: OutboundClient,
  ) {}

  async read(row: CallRow, dir: string): Promise<Recording> {
    const contentType = row.recording_content_type ?? 'application/octet-stream';
    const filename = nameOf(row);
    const path = join(dir, filename);
    if (row.recording_key) {
      const stored = await this.storage.read(row.recording_key);
      if (!stored) throw new ProviderError('the stored recording is missing', false);
      if (stored.bytes > MAX_RECORDING_BYTES) {
        stored.body.destroy();
        throw new ProviderError(`the stored recording is larger than ${MAX_RECORDING_BYTES} bytes`, false);
      }
      let bytes = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          if (bytes > MAX_RECORDING_BYTES) done(new ProviderError(`the stored recording is larger than ${MAX_RECORDING_BYTES} bytes`, false));
          else done(null, chunk);
        },
      });
      await pipeline(stored.body, limit, createWriteStream(path));
      return { path, bytes, filename, contentType };
    }
    if (!row.recording_url) throw new ProviderError('the call record has no recording', false);
    const request = {
      url: row.recording_url,
      maxBytes: MAX_RECORDING_BYTES,
      timeoutMs: 300_000,
      tooLarge: `the recording at its address is larger than ${MAX_RECORDING_BYTES} bytes`,
      answered: "the recording's address answered",
      unreachable: 'the recording cannot be fetched',
    };
    const download = await openDownload(this.outbound, request);
    try {
      await pipeline(download.body, createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw asProviderError(error, request);
    }
    return { path, bytes: download.bytes(), filename, contentType: row.recording_content_type ?? download.contentType ?? contentType };
  }
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
