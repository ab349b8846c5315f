import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startTestS3Server, type TestS3Server } from '@engage/platform/testing';
import { AUDIO_HEADERS, type CallsApp, mp3Of, multipart, setSuiteId, startCallsApp } from '../testing/calls-test-app';

const MB = 1024 * 1024;
const URL = '/functions/v1/mobile-api/call-recording';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// The same endpoint with the CDN configured: recordings go to an S3-compatible server on loopback.
describe('POST /call-recording to an S3-compatible CDN', () => {
  let s3: TestS3Server;
  let calls: CallsApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    s3 = await startTestS3Server();
    calls = await startCallsApp({ ...s3.env, REQUEST_BODY_IDLE_MS: '500' });
    tenant = await createTestTenant(calls.app);
    await setSuiteId(calls, tenant.ctx.organizationId, 'suite-s3');
  });
  afterAll(async () => {
    await calls.close();
    await s3.close();
  });

  const post = (body: ReturnType<typeof multipart>) =>
    calls.app.inject({ method: 'POST', url: URL, headers: { ...tenant.session, ...body.headers }, payload: body.payload });
  const keys = async () => [...(await (await fetch(`${s3.endpoint}/${s3.bucket}`)).text()).matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]);

  it('uploads a recording in parts, intact, with its format’s type, and records the CDN’s address', async () => {
    const bytes = mp3Of(12 * MB);
    const res = await post(multipart({ direction: 'outbound' }, [{ bytes, filename: 'x.bin', contentType: 'application/octet-stream' }]));
    expect(res.statusCode).toBe(200);
    const id = res.json().call_record_id as string;
    const [row] = await calls.runtime.db.asSystem((tx) =>
      tx.query<{ recording_url: string; recording_key: string }>('SELECT * FROM call_records WHERE id = $1', [id]),
    );
    expect(row.recording_key).toMatch(new RegExp(`^suite-s3/\\d{4}/\\d{2}/${id}\\.mp3$`));
    expect(row.recording_url).toBe(`${s3.env.CDN_URL}/${row.recording_key}`);
    const stored = await s3.object(row.recording_key);
    expect(stored?.contentType).toBe('audio/mpeg');
    expect(sha(stored!.bytes)).toBe(sha(bytes));
    expect(s3.requests.some((r) => r.method === 'POST' && r.path.includes('uploadId='))).toBe(true);
  });

  it('leaves nothing in the bucket for a recording over 50 MB (413) or one that is not audio (400)', async () => {
    const before = await keys();
    const big = await post(multipart({}, [{ bytes: mp3Of(51 * MB) }]));
    expect(big.statusCode).toBe(413);
    const text = await post(multipart({}, [{ bytes: Buffer.alloc(MB, 'x') }]));
    expect(text.statusCode).toBe(400);
    expect(await keys()).toEqual(before);
  });

  it('leaves nothing in the bucket for a recording whose body is cut off before its closing boundary (400), the multipart upload abandoned', async () => {
    if (!calls.app.getHttpServer().listening) await calls.app.listen(0, '127.0.0.1');
    const base = await calls.app.getUrl();
    const before = await keys();
    const sentBefore = s3.requests.length;
    const body = multipart({ direction: 'inbound' }, [{ bytes: mp3Of(12 * MB) }]);
    for (const payload of [body.payload.subarray(0, 11 * MB), body.payload.subarray(0, 100 * 1024)]) {
      const res = await fetch(`${base}${URL}`, { method: 'POST', headers: { ...tenant.session, ...body.headers }, body: payload });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'call.invalid_multipart', error: expect.stringMatching(/closing boundary/) });
    }
    expect(await keys()).toEqual(before);
    // The 11 MB cut had begun a multipart upload: it was abandoned (AbortMultipartUpload asked; this server answers 405).
    const sent = s3.requests.slice(sentBefore);
    expect(sent.filter((r) => r.method === 'POST' && r.path.includes('?uploads'))).toHaveLength(1);
    expect(sent.filter((r) => r.method === 'DELETE' && r.path.includes('AbortMultipartUpload'))).toHaveLength(1);
    expect(sent.filter((r) => r.method === 'PUT' && !r.path.includes('uploadId='))).toEqual([]);
    const rows = await calls.runtime.db.asSystem((tx) => tx.query("SELECT id FROM call_records WHERE direction = 'inbound'"));
    expect(rows).toEqual([]);
  });

  it('leaves nothing in the bucket for a recording that stops arriving (408), the multipart upload abandoned', async () => {
    if (!calls.app.getHttpServer().listening) await calls.app.listen(0, '127.0.0.1');
    const port = Number(new globalThis.URL(await calls.app.getUrl()).port);
    const before = await keys();
    const sentBefore = s3.requests.length;
    const body = multipart({ direction: 'missed' }, [{ bytes: mp3Of(20 * MB) }]);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    // A reset when the server closes first is part of the answer (events.once would reject on it).
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `POST ${URL} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${tenant.session.authorization}\r\n` +
        `Content-Type: ${body.headers['content-type']}\r\nContent-Length: ${body.payload.length}\r\n\r\n`,
    );
    socket.write(body.payload.subarray(0, 8 * MB));
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    const abandoned = () => s3.requests.slice(sentBefore).filter((r) => r.method === 'DELETE' && r.path.includes('AbortMultipartUpload'));
    for (let i = 0; i < 200 && abandoned().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const sent = s3.requests.slice(sentBefore);
    expect(sent.filter((r) => r.method === 'POST' && r.path.includes('?uploads'))).toHaveLength(1);
    expect(abandoned()).toHaveLength(1);
    expect(await keys()).toEqual(before);
    const rows = await calls.runtime.db.asSystem((tx) => tx.query("SELECT id FROM call_records WHERE direction = 'missed'"));
    expect(rows).toEqual([]);
  });

  it('stores a small recording of another format as one object', async () => {
    const bytes = Buffer.concat([AUDIO_HEADERS.amr, Buffer.alloc(1000, 3)]);
    const res = await post(multipart({}, [{ bytes }]));
    expect(res.statusCode).toBe(200);
    const stored = (await keys()).find((key) => key.endsWith(`${res.json().call_record_id}.amr`));
    expect(sha((await s3.object(stored!))!.bytes)).toBe(sha(bytes));
  });
});
