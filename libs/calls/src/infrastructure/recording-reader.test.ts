import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStorage, OutboundClient, S3ObjectStorage } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver, startTestS3Server } from '@engage/platform/testing';
import type { CallRow } from '../application/call-processor';
import { ProviderError } from '../application/providers';
import { StoredRecordingReader } from './recording-reader';

describe('reading a recording back', () => {
  const cert = createSelfSignedCert();
  const dir = mkdtempSync(join(tmpdir(), 'engage-recordings-'));
  const storage = new LocalObjectStorage(dir, 'http://cdn.test');
  const copies = mkdtempSync(join(tmpdir(), 'engage-copies-'));
  let cdn: HttpsReceiver;
  const audio = Buffer.from([0xff, 0xfb, 0x90, 0x00, 1, 2, 3, 0, 255]);
  beforeAll(async () => {
    cdn = await startHttpsReceiver(cert, (request, res) => {
      if (request.path !== '/r/call.mp3') return { status: 404 };
      res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(audio);
      return { status: 200 };
    });
  });
  afterAll(async () => {
    await cdn.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(copies, { recursive: true, force: true });
  });
  const row = (over: Partial<CallRow>): CallRow => ({
    id: '0b7f6f2e-66a5-4b43-a0f7-5d1c1b0f3a11',
    status: 'received',
    source: 'mobile',
    contact_id: null,
    recording_url: null,
    recording_key: null,
    recording_content_type: null,
    transcription: null,
    ...over,
  });

  it('copies a stored key from the storage, and an address through the SSRF-safe client, into a file', async () => {
    const allowed = new StoredRecordingReader(storage, new OutboundClient({ allowHosts: ['127.0.0.1'], extraCa: cert.cert }));
    await storage.put('s/2026/11/a.wav', Buffer.from('RIFF-bytes'), { contentType: 'audio/wav' });
    const into = mkdtempSync(join(copies, 'a-'));
    const stored = await allowed.read(row({ recording_key: 's/2026/11/a.wav', recording_content_type: 'audio/wav' }), into);
    expect(stored).toEqual({
      path: join(into, '0b7f6f2e-66a5-4b43-a0f7-5d1c1b0f3a11.wav'),
      bytes: 10,
      filename: '0b7f6f2e-66a5-4b43-a0f7-5d1c1b0f3a11.wav',
      contentType: 'audio/wav',
    });
    expect(readFileSync(stored.path).toString()).toBe('RIFF-bytes');
    const other = mkdtempSync(join(copies, 'b-'));
    const fetched = await allowed.read(row({ recording_url: `${cdn.url}/r/call.mp3` }), other);
    expect([readFileSync(fetched.path).equals(audio), fetched.bytes, fetched.filename, fetched.contentType]).toEqual([
      true,
      audio.length,
      '0b7f6f2e-66a5-4b43-a0f7-5d1c1b0f3a11.mp3',
      'audio/mpeg',
    ]);
    expect(readdirSync(other)).toEqual(['0b7f6f2e-66a5-4b43-a0f7-5d1c1b0f3a11.mp3']);
  });

  it('fails for good on a missing file, a 404 and a private address; a 5xx may pass', async () => {
    const reader = new StoredRecordingReader(storage, new OutboundClient({ extraCa: cert.cert }));
    const failure = (r: CallRow) =>
      reader.read(r, copies).then(
        () => null,
        (e: ProviderError) => [e instanceof ProviderError, e.retryable, e.message],
      );
    expect(await failure(row({ recording_key: 's/2026/11/gone.wav' }))).toEqual([true, false, 'the stored recording is missing']);
    const blocked = await failure(row({ recording_url: `${cdn.url}/r/call.mp3` }));
    expect(blocked).toEqual([true, false, expect.stringMatching(/^the recording cannot be fetched: IP address targets/)]);
    const allowed = new StoredRecordingReader(storage, new OutboundClient({ allowHosts: ['127.0.0.1'], extraCa: cert.cert }));
    const outcome = (url: string) => allowed.read(row({ recording_url: url }), copies).catch((e: ProviderError) => [e.retryable, e.message]);
    expect(await outcome(`${cdn.url}/r/other.mp3`)).toEqual([false, "the recording's address answered 404"]);
    cdn.behave(() => ({ status: 503 }));
    expect(await outcome(`${cdn.url}/r/call.mp3`)).toEqual([true, "the recording's address answered 503"]);
  });

  it('streams a recording kept on an S3-compatible CDN back by its key, not through its public address', async () => {
    const s3 = await startTestS3Server();
    const cdnStorage = new S3ObjectStorage({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      accessKeyId: s3.env.CDN_ACCESS_KEY_ID,
      secretAccessKey: s3.env.CDN_SECRET_ACCESS_KEY,
      region: 'eu-west-1',
      timeoutMs: 10_000,
      publicUrl: 'https://cdn.invalid',
    });
    try {
      const bytes = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(3 * 1024 * 1024, 7)]);
      await cdnStorage.put('s/2026/11/b.mp3', bytes, { contentType: 'audio/mpeg' });
      // No address of the CDN is reachable from here: only the key can bring the bytes back.
      const reader = new StoredRecordingReader(cdnStorage, new OutboundClient({ extraCa: cert.cert }));
      const into = mkdtempSync(join(copies, 's3-'));
      const copy = await reader.read(row({ recording_key: 's/2026/11/b.mp3', recording_url: 'https://cdn.invalid/s/2026/11/b.mp3' }), into);
      expect([copy.bytes, readFileSync(copy.path).equals(bytes)]).toEqual([bytes.length, true]);
      const missing = await reader.read(row({ recording_key: 's/2026/11/none.mp3' }), into).catch((e: ProviderError) => e.message);
      expect(missing).toBe('the stored recording is missing');
    } finally {
      await cdnStorage.onModuleDestroy();
      await s3.close();
    }
  });
});
