import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { bodySignal, type ObjectStorage, type StoredObject, unlessAborted, watchMultipartEnd } from '@engage/platform';
import { DomainError } from '@engage/shared-kernel';
import { type AudioFormat, SNIFF_BYTES, sniffAudioFormat } from '../domain/audio-format';

// §8: a recording file of at most 50 MB (MiB, as clients count them).
export const RECORDING_MAX_BYTES = 50 * 1024 * 1024;
// Two files are let through so a second one is refused by name (400), not as a parser limit.
const LIMITS = { files: 2, fields: 20, fieldSize: 64 * 1024, parts: 22, fileSize: RECORDING_MAX_BYTES, headerPairs: 100 };

export interface StoredRecording extends StoredObject {
  format: AudioFormat;
}

export interface MultipartCall {
  fields: Record<string, string>;
  stored?: StoredRecording;
}

const tooLarge = () => new DomainError('too_large', 'call.file_too_large', `the recording is larger than ${RECORDING_MAX_BYTES / 1024 / 1024} MB`);
const unsupported = () =>
  new DomainError('validation', 'call.unsupported_format', 'the file is not a recording in a supported format (MP3, M4A, WAV, OGG, WebM, AAC, 3GP or AMR)');

const brokenOff = (reason: unknown) =>
  new DomainError(
    'validation',
    'call.upload_aborted',
    `the upload broke off before the whole file arrived${reason instanceof Error ? ` (${reason.message})` : ''}`,
  );
const cutOff = () =>
  new DomainError(
    'validation',
    'call.invalid_multipart',
    'the multipart body ended before its closing boundary: it was cut off (nothing was stored; send the whole body again)',
  );

// The file's bytes as one stream: its first bytes (read to recognise the format) and then the rest,
// read as the storage consumes them. Past the size limit the parser stops the file short; that is
// an error here, so the storage never keeps a truncated recording.
async function sniffed(part: MultipartFile): Promise<{ format: AudioFormat; body: Readable }> {
  const chunks = part.file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const check = () => {
    if (part.file.truncated) throw tooLarge();
  };
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < SNIFF_BYTES && !done) {
    const next = await chunks.next();
    check();
    if (next.done) done = true;
    else head = Buffer.concat([head, next.value]);
  }
  const format = sniffAudioFormat(head);
  if (!format) throw unsupported();
  async function* rest(): AsyncGenerator<Buffer> {
    yield head;
    while (!done) {
      const next = await chunks.next();
      check();
      if (next.done) done = true;
      else yield next.value;
    }
  }
  return { format, body: Readable.from(rest(), { objectMode: false }) };
}

// Reads a multipart/form-data call: text fields, and the part named `file` streamed straight to the
// storage under the key `keyOf` gives for its format (never held whole in memory). After a refusal
// the rest of the body is still read (and dropped), so the connection stays usable for the client's
// next request; then the refusal is thrown and what was stored is removed.
export async function readMultipartCall(
  request: FastifyRequest,
  storage: ObjectStorage,
  keyOf: (format: AudioFormat) => Promise<string>,
): Promise<MultipartCall> {
  const fields: Record<string, string> = {};
  let stored: StoredRecording | undefined;
  let refusal: unknown;
  // Aborted when the body stops arriving or its connection goes before it was read: the parser
  // would otherwise leave the upload (and its gate slot) waiting for bytes that never come. The
  // storage port then removes what it wrote.
  const signal = bodySignal(request.raw);
  const parts = request.parts({ limits: LIMITS })[Symbol.asyncIterator]();
  let whole: (() => boolean) | undefined;
  // The file part being read. The parser leaves it waiting when the connection closes after an
  // answer was sent (the 408 of a body that stopped arriving): destroyed here, its reader (and the
  // storage's write, which cannot finish its abort while the reader waits) fails at once.
  let reading: Readable | undefined;
  const stopReading = () => reading?.destroy(signal.reason as Error);
  signal.addEventListener('abort', stopReading, { once: true });
  try {
    for (;;) {
      const pending = parts.next();
      // The first next() gave the parser the body: the closing delimiter can be watched for now.
      whole ??= watchMultipartEnd(request.raw);
      const next = await unlessAborted(pending, signal);
      if (next.done) break;
      const part = next.value;
      if (refusal !== undefined) {
        if (part.type === 'file') discard(part.file);
        continue;
      }
      try {
        if (part.type === 'field') {
          if (part.valueTruncated) throw new DomainError('validation', 'validation_failed', `${part.fieldname.slice(0, 50)} is too long`);
          if (!(part.fieldname in fields)) fields[part.fieldname] = String(part.value);
          continue;
        }
        if (part.fieldname !== 'file' || stored) {
          throw new DomainError('validation', 'validation_failed', `only one file, in the field "file", is accepted (got "${part.fieldname.slice(0, 50)}")`);
        }
        reading = part.file;
        const { format, body } = await unlessAborted(sniffed(part), signal);
        const key = await keyOf(format);
        stored = { ...(await storage.put(key, body, { contentType: format.contentType, signal })), format };
        reading = undefined;
      } catch (error) {
        refusal = error;
        if (part.type === 'file') discard(part.file);
      }
    }
    // The parser ends its parts quietly at a body cut off between them (the fields after the cut are
    // just missing): the closing delimiter must have arrived. A refusal of ours says more.
    if (refusal === undefined && !whole?.()) throw cutOff();
    if (refusal !== undefined) throw refusal;
    return { fields, stored };
  } catch (error) {
    if (stored) await storage.remove(stored.key).catch(() => undefined);
    throw asUploadError(refusal ?? error, request, signal);
  } finally {
    signal.removeEventListener('abort', stopReading);
  }
}

// Reads the rest of a file and drops it. The stream may have been read through an async iterator,
// whose 'readable' listener would keep resume() from doing anything.
function discard(file: Readable): void {
  file.removeAllListeners('readable');
  file.on('data', () => undefined);
  file.resume();
}

// The parser's own errors (limits, malformed bodies) as this endpoint's answers.
function asUploadError(error: unknown, request: FastifyRequest, signal: AbortSignal): unknown {
  // The body stopped arriving or its connection went: whatever failed after, that is why.
  if (signal.aborted) return brokenOff(signal.reason);
  if (error instanceof DomainError) return error;
  const code = (error as { code?: unknown })?.code;
  // A part the parser ended before its closing delimiter (it destroys the file stream, which its
  // reader sees as a premature close), the whole body having arrived: a body cut off.
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || (error instanceof Error && /terminated early|Unexpected end of/i.test(error.message))) {
    return request.raw.complete ? cutOff() : brokenOff(undefined);
  }
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (typeof code === 'string' && code.startsWith('FST_')) {
    const limit = ['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'].includes(code);
    return new DomainError(
      limit ? 'too_large' : 'validation',
      'call.invalid_multipart',
      `the multipart body could not be read: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (error instanceof Error && /multipart|boundary/i.test(error.message)) {
    return new DomainError('validation', 'call.invalid_multipart', `the multipart body could not be read: ${error.message.slice(0, 200)}`);
  }
  return error;
}
