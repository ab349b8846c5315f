import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { PLATFORM_LOG, type PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

const IDLE_MS = 2500;
const BOUNDARY = 'stalled-upload';
// An MP3 frame header, then nothing: the recording's format is not even known yet.
const MP3_START = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00]);

interface Stalled {
  socket: Socket;
  // The start of the body has been handed to the connection.
  written: Promise<void>;
  // Everything the server sent, once it closed the connection.
  answer: Promise<string>;
  sentAt: number;
}

// Issue 33, items 1 and 2: uploads that stop arriving (four imports and four call recordings of
// two organizations, sockets open) took all 8 of the process's gate slots; every other organization
// was then refused 429 "Too many requests of all organizations", for as long as the sockets stayed
// open, and after their clients had gone when the bodies had arrived whole without their closing
// boundary. Now an upload takes a slot of the upload budget first (2 per organization, 4 per process
// by default), a body that stops arriving is answered 408 after REQUEST_BODY_IDLE_MS and its
// connection closed, and every upload's handler ends, and its slots come back, however its request
// ends.
describe('uploads that stop arriving hold nothing hostage', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let port: number;
  let errors: jest.SpyInstance;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp({
      env: {
        // 8 gated slots, as in production by default (the tests' default pool is smaller).
        DATABASE_POOL_SIZE: '10',
        REQUEST_BODY_IDLE_MS: String(IDLE_MS),
        // The overall deadline is not what ends them.
        REQUEST_TIMEOUT_MS: '120000',
        // Uploads past the budget wait for it (rather than being refused at once), stalled too.
        ORG_QUEUE_WAIT_MS: '30000',
      },
    }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.getHttpServer().address() as AddressInfo).port;
    errors = jest.spyOn(app.get<{ error: (...args: unknown[]) => void }>(PLATFORM_LOG), 'error');
  });
  afterAll(() => close());

  const base = () => `http://127.0.0.1:${port}`;
  const metric = async (name: string, state: string) => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(new RegExp(`^${name}\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  };
  const gateState = async () => ({
    requests: [await metric('org_gate_requests', 'running'), await metric('org_gate_requests', 'waiting')],
    uploads: [await metric('org_gate_uploads', 'running'), await metric('org_gate_uploads', 'waiting')],
  });
  const until = async (condition: () => Promise<boolean>, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 25))) if (await condition()) return;
  };
  const settled = async () => {
    const idle = { requests: [0, 0], uploads: [0, 0] };
    await until(async () => JSON.stringify(await gateState()) === JSON.stringify(idle), 5000);
    return gateState();
  };
  const cdnFiles = () => {
    try {
      return readdirSync(join(runtime.config.DATA_DIR, 'cdn'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    } catch {
      return [];
    }
  };
  const unhandled = () => errors.mock.calls.filter((call) => call.includes('unhandled error'));

  // Headers and the start of a multipart body promising far more; then nothing (or `rest`).
  function upload(tenant: TestTenant, path: string, start: Buffer, length = 1_000_000): Stalled {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
    const head = [`POST ${path} HTTP/1.1`, 'Host: x', `Authorization: ${tenant.session.authorization}`];
    head.push(`Content-Type: multipart/form-data; boundary=${BOUNDARY}`, `Content-Length: ${length}`, 'Connection: close');
    const written = new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), start]), () => resolve()));
    return { socket, written, answer, sentAt: Date.now() };
  }
  const csvStart = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\nfirst_name\nAda\n`,
  );
  const recordingStart = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="direction"\r\n\r\noutbound\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="call.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
    MP3_START,
  ]);
  const importOf = (tenant: TestTenant) => upload(tenant, '/functions/v1/contacts/import', csvStart);
  const recordingOf = (tenant: TestTenant) => upload(tenant, '/functions/v1/mobile-api/call-recording', recordingStart);

  async function tenants(): Promise<[TestTenant, TestTenant, TestTenant]> {
    const [a, b, calm] = [await createTestTenant(app), await createTestTenant(app), await createTestTenant(app)];
    for (const t of [a, b]) await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'suite_id', `suite-${t.ctx.organizationId.slice(0, 8)}`);
    await app.get(OrganizationService).setSetting(calm.ctx.organizationId, 'appgain_api_key', 'k-123');
    return [a, b, calm];
  }
  const read = (t: TestTenant) => fetch(`${base()}/rest/v1/contacts?select=first_name`, { headers: t.session });
  const send = (t: TestTenant, to: string) =>
    fetch(`${base()}/functions/v1/chat-lite-send`, {
      method: 'POST',
      headers: { ...t.key, 'content-type': 'application/json' },
      body: JSON.stringify({ to, message: 'still served', organizationId: t.ctx.organizationId, contactName: 'Calm' }),
    });

  it("should serve a third organization's reads and sends while eight stalled uploads of two others are held, then answer them 408 and give every slot back", async () => {
    const [a, b, calm] = await tenants();
    const stalled = [a, b].flatMap((t) => [importOf(t), importOf(t), recordingOf(t), recordingOf(t)]);
    // The upload budget runs 4 (2 of each organization) and holds the other 4 waiting for it.
    await until(async () => JSON.stringify((await gateState()).uploads) === '[4,4]', 5000);
    expect(await gateState()).toEqual({ requests: [4, 0], uploads: [4, 4] });

    const answers = [await read(calm), await send(calm, '201001112233'), await send(calm, '201001112244'), await read(calm)];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(await answers[0].json()).toEqual([]);
    expect(await answers[1].json()).toMatchObject({ success: true });
    // The stalling organizations' own reads still have slots of their own.
    expect((await read(a)).status).toBe(200);
    expect((await fetch(`${base()}/functions/v1/imports`, { headers: b.session })).status).toBe(200);

    const ends = await Promise.all(stalled.map(async ({ answer, sentAt }) => ({ received: await answer, after: Date.now() - sentAt })));
    for (const { received, after } of ends) {
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(received).toContain('"code":"request_timeout"');
      expect(received).toContain(`nothing for ${IDLE_MS} ms`);
      expect(after).toBeGreaterThanOrEqual(IDLE_MS - 50);
    }
    expect(await settled()).toEqual({ requests: [0, 0], uploads: [0, 0] });
    // Nothing stored, no import left running, nothing logged as an unhandled error.
    expect(cdnFiles()).toEqual([]);
    for (const t of [a, b]) {
      const { imports } = (await (await fetch(`${base()}/functions/v1/imports`, { headers: t.session })).json()) as { imports: { status: string }[] };
      expect(imports.filter((job) => job.status !== 'failed')).toEqual([]);
    }
    expect(unhandled()).toEqual([]);
  });

  it('should give the slots back at once when the clients go mid-upload, or after their whole bodies without a closing boundary', async () => {
    const [a, b, calm] = await tenants();
    const gone = [importOf(a), recordingOf(a), importOf(b), recordingOf(b)];
    await until(async () => (await gateState()).uploads[0] === 4, 5000);
    const leftAt = Date.now();
    for (const { socket } of gone) socket.destroy();
    expect(await settled()).toEqual({ requests: [0, 0], uploads: [0, 0] });
    expect(Date.now() - leftAt).toBeLessThan(IDLE_MS);

    // The probe's case: four imports of each of two organizations, each body sent whole but without
    // its closing boundary, the clients gone without reading the answer.
    const whole = (t: TestTenant) => upload(t, '/functions/v1/contacts/import', csvStart, csvStart.length);
    const cut = [a, b].flatMap((t) => [whole(t), whole(t), whole(t), whole(t)]);
    await Promise.all(cut.map(({ written }) => written));
    for (const { socket } of cut) socket.destroy();
    expect(await settled()).toEqual({ requests: [0, 0], uploads: [0, 0] });
    expect(Date.now() - leftAt).toBeLessThan(IDLE_MS);
    expect((await read(calm)).status).toBe(200);
    // One that waits for its answer is told why.
    const told = whole(a);
    const timer = setTimeout(() => told.socket.destroy(), IDLE_MS);
    const answer = await told.answer;
    clearTimeout(timer);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"import.invalid_multipart"');
    expect(answer).toContain('ended before its closing boundary');
    expect(await settled()).toEqual({ requests: [0, 0], uploads: [0, 0] });
    expect(cdnFiles()).toEqual([]);
    expect(unhandled()).toEqual([]);
  });
});
