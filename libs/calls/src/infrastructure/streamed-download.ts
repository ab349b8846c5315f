import { pipeline, type Readable, Transform } from 'node:stream';
import { OutboundError, type OutboundClient } from '@engage/platform';
import { ProviderError } from '../application/providers';

export interface DownloadRequest {
  url: string;
  headers?: Record<string, string>;
  maxBytes: number;
  timeoutMs: number;
  // How failures read on the call record: "<tooLarge>", "<answered> 404", "<unreachable>: <why>".
  tooLarge: string;
  answered: string;
  unreachable: string;
}

export interface Download {
  body: Readable;
  contentType: string | null;
  // Bytes passed on so far.
  bytes: () => number;
}

// Opens a download through the SSRF-safe client and hands its body on as it arrives, never whole: a
// declared length over `maxBytes` is refused before reading, and a body that grows past it fails
// the stream with a permanent ProviderError, so whatever writes it (a file, the object storage)
// stops and removes what it wrote.
export async function openDownload(outbound: OutboundClient, request: DownloadRequest): Promise<Download> {
  let answer;
  try {
    answer = await outbound.stream({ url: request.url, method: 'GET', headers: request.headers, timeoutMs: request.timeoutMs });
  } catch (error) {
    throw asProviderError(error, request);
  }
  const { status, headers, body } = answer;
  if (status < 200 || status > 299) {
    body.destroy();
    throw new ProviderError(`${request.answered} ${status}`, status >= 500 || status === 429);
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    body.destroy();
    throw new ProviderError(request.tooLarge, false);
  }
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > request.maxBytes) done(new ProviderError(request.tooLarge, false));
      else done(null, chunk);
    },
  });
  // pipeline() destroys the download when the limit fails, and passes a broken download on as
  // the limit's error (a timeout or a reset: worth another try).
  const limited = pipeline(body, limit, () => undefined);
  const type = typeof headers['content-type'] === 'string' ? headers['content-type'].split(';')[0].trim() : '';
  return { body: limited, contentType: type || null, bytes: () => bytes };
}

// Any failure of a download as the call record says it: refusals by policy and size are for good.
export function asProviderError(error: unknown, request: Pick<DownloadRequest, 'unreachable'>): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof OutboundError) return new ProviderError(`${request.unreachable}: ${error.message}`, !error.blocked);
  return new ProviderError(`${request.unreachable}: ${(error as Error).message}`, true);
}
