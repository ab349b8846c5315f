import { createHash } from 'node:crypto';
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
    calls = await startCallsApp(s3.env);
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

  it('stores a small recording of another format as one object', async () => {
    const bytes = Buffer.concat([AUDIO_HEADERS.amr, Buffer.alloc(1000, 3)]);
    const res = await post(multipart({}, [{ bytes }]));
    expect(res.statusCode).toBe(200);
    const stored = (await keys()).find((key) => key.endsWith(`${res.json().call_record_id}.amr`));
    expect(sha((await s3.object(stored!))!.bytes)).toBe(sha(bytes));
  });
});
