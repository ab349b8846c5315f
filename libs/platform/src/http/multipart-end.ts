import type { IncomingMessage } from 'node:http';

const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i;

// Whether a multipart/form-data body's closing delimiter (CRLF "--" boundary "--") has gone by. The
// multipart parser ends its parts quietly when the body ends without it (fields cut off are simply
// missing), so a handler that must not take a cut-off body for a whole one asks this once the
// parts have ended. It watches the bytes as the parser reads them: call it right after the parser
// was given the body (after request.file() or the first next() of request.parts()), never before:
// a 'data' listener on a request nobody reads yet would start the bytes flowing past the parser.
export function watchMultipartEnd(raw: IncomingMessage): () => boolean {
  const match = BOUNDARY.exec(String(raw.headers['content-type'] ?? ''));
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return () => false;
  const needle = Buffer.from(`\r\n--${boundary}--`);
  // A body that is only the closing delimiter has no line break before it.
  let tail = Buffer.from('\r\n');
  let seen = false;
  const onData = (chunk: Buffer) => {
    // Within the chunk, or across its start and the previous chunk's end.
    const joined = Buffer.concat([tail, chunk.subarray(0, needle.length - 1)]);
    if (joined.includes(needle) || chunk.includes(needle)) {
      seen = true;
      raw.off('data', onData);
      return;
    }
    const rest = needle.length - 1;
    tail = chunk.length >= rest ? Buffer.from(chunk.subarray(chunk.length - rest)) : Buffer.concat([tail, chunk]).subarray(-rest);
  };
  raw.on('data', onData);
  raw.once('close', () => raw.off('data', onData));
  return () => seen;
}
