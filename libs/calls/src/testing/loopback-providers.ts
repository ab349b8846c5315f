import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HeardAudio, hearAudio } from './audio-fixtures';

// A loopback peer speaking the OpenAI-compatible APIs the calls context uses, for tests:
// POST /v1/audio/transcriptions (multipart/form-data: file, model, response_format, language) and
// POST /v1/chat/completions (JSON). It records what it received; answers are scripted per test.
// Its speech recognition is a stand-in: a WAV file's samples are read back as UTF-8 text, so a test
// can say what each recording "says"; any other file is "audio of N bytes". With `hearing` on, every
// file must be a real recording (hearAudio: a known format that decodes cleanly),
// else it is refused with 400 as a real service would; its text is the tones heard in it.

export interface ReceivedTranscription {
  authorization: string | undefined;
  contentType: string;
  // The request's content-length header and the bytes that came.
  contentLength: string | undefined;
  bodyBytes: number;
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer } | null;
  // What was heard in the file, with `hearing` on.
  heard?: HeardAudio;
}

export interface ReceivedCompletion {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export type Scripted = { status: number; body: unknown } | { hang: true } | { content: string };

export class LoopbackProviders {
  readonly transcriptions: ReceivedTranscription[] = [];
  readonly completions: ReceivedCompletion[] = [];
  // Answers used in order before the default ones.
  readonly transcriptionScript: Scripted[] = [];
  readonly completionScript: Scripted[] = [];
  hearing = false;
  // Bearer keys answered 401, as a provider answers a revoked key (GET /v1/models and completions).
  readonly refusedKeys = new Set<string>();
  readonly modelChecks: (string | undefined)[] = [];
  private readonly hanging = new Set<() => void>();
  private server!: Server;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.route(req).then(
        (answer) => {
          if ('hang' in answer) return void this.hanging.add(() => res.destroy());
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        },
        (error: Error) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: error.message } })),
      );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  // Ends the requests held open by { hang: true } (their clients see the connection reset).
  releaseHanging(): void {
    for (const release of this.hanging) release();
    this.hanging.clear();
  }

  get hangingCount(): number {
    return this.hanging.size;
  }

  async stop(): Promise<void> {
    this.releaseHanging();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async route(req: IncomingMessage): Promise<{ status: number; body: unknown } | { hang: true }> {
    const body = await readBody(req);
    if (req.method === 'POST' && req.url === '/v1/audio/transcriptions') return this.transcription(req, body);
    if (this.refusedKeys.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } };
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') return this.completion(req, body);
    if (req.method === 'GET' && req.url === '/v1/models') {
      this.modelChecks.push(req.headers.authorization);
      return { status: 200, body: { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] } };
    }
    return { status: 404, body: { error: { message: `no route ${req.method} ${req.url}` } } };
  }

  private async transcription(req: IncomingMessage, body: Buffer) {
    const contentType = req.headers['content-type'] ?? '';
    // The multipart body parsed by the WHATWG Request (undici), as a real server's parser would.
    const form = await new Request('http://loopback/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(body) }).formData();
    const fields: Record<string, string> = {};
    let file: ReceivedTranscription['file'] = null;
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') fields[name] = value;
      else if (name === 'file') file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    const heard = this.hearing && file ? await hearAudio(file.bytes, file.name) : undefined;
    const sizes = { contentLength: req.headers['content-length'], bodyBytes: body.length };
    this.transcriptions.push({ authorization: req.headers.authorization, contentType, ...sizes, fields, file, heard });
    const scripted = this.transcriptionScript.shift();
    if (scripted) return 'content' in scripted ? { status: 200, body: { text: scripted.content } } : scripted;
    if (!file || !fields.model) return { status: 400, body: { error: { message: 'file and model are required' } } };
    if (heard && (heard.format === null || heard.errors !== '' || heard.seconds === 0)) {
      return { status: 400, body: { error: { message: `Invalid file format: ${heard.errors || 'no audio'}` } } };
    }
    return { status: 200, body: { text: heard ? heard.tones.map((hz) => `tone ${hz}`).join(' ') : spokenText(file.bytes) } };
  }

  private completion(req: IncomingMessage, body: Buffer) {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    this.completions.push({ authorization: req.headers.authorization, body: parsed });
    const scripted = this.completionScript.shift();
    if (scripted && !('content' in scripted)) return scripted;
    const content = scripted?.content ?? JSON.stringify(defaultAnalysis(parsed));
    const choices = [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }];
    return { status: 200, body: { id: 'chatcmpl-loopback', object: 'chat.completion', choices } };
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isWavSaying = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 36, 40) === 'data';

// A WAV file's samples as text; anything else by its size.
export function spokenText(bytes: Buffer): string {
  if (isWavSaying(bytes)) return bytes.subarray(44).toString('utf8').trim();
  return `audio of ${bytes.length} bytes`;
}

// A WAV file (16-bit mono, 8 kHz) whose samples are `text` in UTF-8, padded to whole samples.
export function wavSaying(text: string): Buffer {
  const raw = Buffer.from(text, 'utf8');
  const samples = raw.length % 2 === 0 ? raw : Buffer.concat([raw, Buffer.from(' ')]);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

// A valid answer derived from the transcript the request carries.
function defaultAnalysis(request: Record<string, unknown>) {
  const messages = request.messages as { content: string }[];
  const transcript = messages[messages.length - 1].content.split('\n').slice(1).join('\n');
  return {
    sentiment: /thank|شكرا/i.test(transcript) ? 'positive' : 'neutral',
    keywords: transcript
      .split(/\s+/)
      .filter((w) => w.length > 4)
      .slice(0, 3),
    action_items: ['Send the quote'],
    summary: `The customer said: ${transcript.slice(0, 80)}`,
  };
}
