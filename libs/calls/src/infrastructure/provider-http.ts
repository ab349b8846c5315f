import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import FormData from 'form-data';
import { ProviderError } from '../application/providers';

const RETRYABLE_STATUSES = new Set([408, 409, 429]);
// An answer's body we read (JSON texts and error messages are small).
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

// One request to an OpenAI-compatible API: a network failure, a timeout, 429 or a 5xx is
// retryable; any other non-2xx is not. The key is sent, never put in an error message.
// `fetch`: the transport to a customer-given address (the platform's SSRF-safe client); default the global one.
export async function providerRequest(
  url: string,
  init: { apiKey?: string; body: string; timeoutMs: number; what: string; fetch?: typeof fetch },
): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
  let response: Response;
  try {
    response = await (init.fetch ?? fetch)(url, { method: 'POST', headers, body: init.body, signal: AbortSignal.timeout(init.timeoutMs), redirect: 'error' });
  } catch (error) {
    throw networkError(error as Error, init);
  }
  return answerOf(response.status, await response.text().catch(() => ''), init.what);
}

export interface UploadInit {
  apiKey?: string;
  fields: Record<string, string>;
  file: { path: string; bytes: number; filename: string; contentType: string };
  timeoutMs: number;
  what: string;
}

// A multipart/form-data upload of a file on disk, streamed as the connection takes it (fetch
// buffers a streamed body when the disk is faster than the network), with its length known.
export function providerUpload(url: string, init: UploadInit): Promise<unknown> {
  const form = new FormData();
  for (const [name, value] of Object.entries(init.fields)) form.append(name, value);
  const { file } = init;
  const content = createReadStream(file.path);
  form.append('file', content, { filename: file.filename, contentType: file.contentType, knownLength: file.bytes });
  const headers: Record<string, string | number> = { ...form.getHeaders(), 'content-length': form.getLengthSync() };
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
  const send = new URL(url).protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), init.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      content.destroy();
      reject(error instanceof ProviderError ? error : networkError(error, init));
    };
    req.on('error', fail);
    form.on('error', (error: Error) => req.destroy(error));
    req.on('response', (res: IncomingMessage) => {
      readAnswer(res).then((text) => {
        clearTimeout(timer);
        content.destroy();
        try {
          resolve(answerOf(res.statusCode ?? 0, text, init.what));
        } catch (error) {
          reject(error as Error);
        }
      }, fail);
    });
    form.pipe(req);
  });
}

function readAnswer(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function networkError(error: Error, init: { timeoutMs: number; what: string }): ProviderError {
  const reason = error.name === 'TimeoutError' ? `no answer within ${init.timeoutMs} ms` : error.message;
  return new ProviderError(`${init.what}: ${reason}`, true);
}

function answerOf(status: number, text: string, what: string): unknown {
  if (status < 200 || status > 299) {
    const retryable = status >= 500 || RETRYABLE_STATUSES.has(status);
    throw new ProviderError(`${what} answered ${status}: ${errorText(text)}`, retryable);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderError(`${what} answered with a body that is not JSON`, true);
  }
}

// The provider's own error message when it sends one ({error: {message}}), cut short.
function errorText(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || '(empty body)';
}
