import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError, type Recording } from '../application/providers';
import { LoopbackProviders, wavSaying } from '../testing/loopback-providers';
import { OpenAiAnalyser } from './openai-analyser';
import { OpenAiTranscriber } from './openai-transcriber';

describe('the OpenAI-compatible providers against a loopback peer', () => {
  let peer: LoopbackProviders;
  const dir = mkdtempSync(join(tmpdir(), 'engage-providers-'));
  beforeEach(async () => {
    peer = await new LoopbackProviders().start();
  });
  afterEach(() => peer.stop());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A recording as the pipeline hands it over: a file on disk.
  const fileOf = (bytes: Buffer, filename: string, contentType: string): Recording => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}-${filename}`);
    writeFileSync(path, bytes);
    return { path, bytes: bytes.length, filename, contentType };
  };

  it('sends a recording as multipart with file, model, format and language, and the key as a bearer token', async () => {
    const transcriber = new OpenAiTranscriber({ baseUrl: peer.baseUrl, apiKey: 'sk-transcribe', model: 'whisper-1' });
    const result = await transcriber.transcribe(fileOf(wavSaying('hello I need a quote'), 'rec.wav', 'audio/wav'), 'en');
    expect(result).toEqual({ text: 'hello I need a quote', pieces: 1, model: 'whisper-1' });
    const [received] = peer.transcriptions;
    expect(received.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(received.authorization).toBe('Bearer sk-transcribe');
    expect(received.fields).toEqual({ model: 'whisper-1', response_format: 'json', language: 'en' });
    expect(received.file).toMatchObject({ name: 'rec.wav', type: 'audio/wav' });
    // Streamed from the file with its length declared up front (no chunked upload).
    expect(received.contentLength).toBe(String(received.bodyBytes));
    expect(received.file!.bytes.equals(wavSaying('hello I need a quote'))).toBe(true);

    await transcriber.transcribe(fileOf(wavSaying('مرحبا'), 'rec.wav', 'audio/wav'), 'auto');
    expect(peer.transcriptions[1].fields).toEqual({ model: 'whisper-1', response_format: 'json' });
  });

  it('says which failures are worth retrying, without the key in the message', async () => {
    const transcriber = new OpenAiTranscriber({ baseUrl: peer.baseUrl, apiKey: 'sk-secret-key', model: 'whisper-1' });
    const recording = fileOf(wavSaying('hi'), 'a.wav', 'audio/wav');
    peer.transcriptionScript.push(
      { status: 503, body: { error: { message: 'overloaded' } } },
      { status: 429, body: {} },
      { status: 400, body: { error: { message: 'bad audio' } } },
    );
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await transcriber.transcribe(recording, 'auto').catch((e: ProviderError) => [e.retryable, e.message]));
    expect(outcomes).toEqual([
      [true, 'transcription answered 503: overloaded'],
      [true, 'transcription answered 429: {}'],
      [false, 'transcription answered 400: bad audio'],
    ]);
    const down = new OpenAiTranscriber({ baseUrl: 'http://127.0.0.1:1/v1', model: 'whisper-1' });
    await expect(down.transcribe(recording, 'auto')).rejects.toMatchObject({ retryable: true });
    peer.transcriptionScript.push({ hang: true });
    const slow = new OpenAiTranscriber({ baseUrl: peer.baseUrl, model: 'whisper-1', timeoutMs: 200 });
    await expect(slow.transcribe(recording, 'auto')).rejects.toMatchObject({ retryable: true, message: 'transcription: no answer within 200 ms' });
  });

  it('asks the AI for schema-checked JSON and returns it labelled with the model', async () => {
    const analyser = new OpenAiAnalyser({ baseUrl: peer.baseUrl, apiKey: 'sk-ai', model: 'gpt-test' });
    const result = await analyser.analyse('thank you, please send the updated quotation tomorrow');
    expect(result).toEqual({
      analyser: 'ai',
      model: 'gpt-test',
      sentiment: 'positive',
      keywords: ['thank', 'please', 'updated'],
      action_items: ['Send the quote'],
      summary: 'The customer said: thank you, please send the updated quotation tomorrow',
    });
    const [request] = peer.completions;
    expect(request.authorization).toBe('Bearer sk-ai');
    expect(request.body).toMatchObject({ model: 'gpt-test', response_format: { type: 'json_schema', json_schema: { name: 'call_analysis', strict: true } } });
    const schema = (request.body.response_format as { json_schema: { schema: { required: string[] } } }).json_schema.schema;
    expect(schema.required).toEqual(['sentiment', 'keywords', 'action_items', 'summary']);
  });

  it('asks once more after a malformed answer, then fails without retry', async () => {
    const analyser = new OpenAiAnalyser({ baseUrl: peer.baseUrl, model: 'gpt-test' });
    peer.completionScript.push({ content: 'Sure! Here is the analysis: positive' });
    await expect(analyser.analyse('hello')).resolves.toMatchObject({ analyser: 'ai', sentiment: 'neutral' });
    expect(peer.completions).toHaveLength(2);

    peer.completionScript.push({ content: '{"sentiment":"happy","keywords":[],"action_items":[],"summary":""}' }, { content: '{"sentiment":"neutral"}' });
    const failure = await analyser.analyse('hello').catch((e: ProviderError) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({
      retryable: false,
      message: 'the AI answered twice with malformed analysis (keywords must be a list of at most 20 strings)',
    });
    expect(peer.completions).toHaveLength(4);

    peer.completionScript.push({ status: 500, body: { error: { message: 'upstream' } } });
    await expect(analyser.analyse('hello')).rejects.toMatchObject({ retryable: true, message: 'AI analysis answered 500: upstream' });
  });
});
