import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ObjectStorage, StoredObject } from '@engage/platform';
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

// Aborted when the client goes before the body is whole: the multipart parser would otherwise leave
// the upload waiting for bytes that never come. The storage port then removes what it wrote.
function abortOnBrokenOff(raw: IncomingMessage): { signal: AbortSignal; forget: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!raw.complete) controller.abort(new DomainError('validation', 'call.upload_aborted', 'the upload broke off before the whole file arrived'));
  };
  raw.once('aborted', onClose);
  raw.socket?.once('close', onClose);
  return {
    signal: controller.signal,
    forget: () => {
      raw.off('aborted', onClose);
      raw.socket?.off('close', onClose);
    },
  };
}

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
  const { signal, forget } = abortOnBrokenOff(request.raw);
  try {
    for await (const part of request.parts({ limits: LIMITS })) {
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
        const { format, body } = await sniffed(part);
        const key = await keyOf(format);
        stored = { ...(await storage.put(key, body, { contentType: format.contentType, signal })), format };
      } catch (error) {
        refusal = error;
        if (part.type === 'file') discard(part.file);
      }
    }
    if (refusal !== undefined) throw refusal;
    return { fields, stored };
  } catch (error) {
    if (stored) await storage.remove(stored.key).catch(() => undefined);
    // A refusal of ours explains the request better than the parser's error that followed it.
    throw asUploadError(refusal ?? error);
  } finally {
    forget();
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
function asUploadError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  if (signalReason(error)) return signalReason(error);
  const code = (error as { code?: unknown })?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (typeof code === 'string' && code.startsWith('FST_')) {
    const limit = ['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'].includes(code);
    return new DomainError(
      limit ? 'too_large' : 'validation',
      'call.invalid_multipart',
      `the multipart body could not be read: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (error instanceof Error && /multipart|boundary|Unexpected end of form|terminated early/i.test(error.message)) {
    return new DomainError('validation', 'call.invalid_multipart', `the multipart body could not be read: ${error.message.slice(0, 200)}`);
  }
  return error;
}

function signalReason(error: unknown): DomainError | undefined {
  const cause = (error as { cause?: unknown })?.cause;
  return cause instanceof DomainError ? cause : undefined;
}
