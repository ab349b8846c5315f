import { once } from 'node:events';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { bodySignal, installBodyTimeout } from './body-timeout';
import { watchMultipartEnd } from './multipart-end';

const IDLE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A route that reads its body as a stream, after `waitMs`, and tells how it ended.
async function start(deadlineMs: number, waitMs = 0): Promise<{ app: FastifyInstance; port: number; ends: string[] }> {
  const app = Fastify();
  const ends: string[] = [];
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
  installBodyTimeout(app, { deadlineMs, idleMs: IDLE_MS });
  app.post('/upload', async (request) => {
    const signal = bodySignal(request.raw);
    signal.addEventListener('abort', () => ends.push(`aborted: ${(signal.reason as { code: string }).code}`));
    await sleep(waitMs);
    let bytes = 0;
    try {
      for await (const chunk of request.body as Readable) bytes += (chunk as Buffer).length;
    } catch {
      return {};
    }
    ends.push(`read ${bytes}`);
    return { bytes };
  });
  // Asks for the signal only after `waitMs`: the body may have arrived whole with the headers.
  app.post('/late', async (request) => {
    await sleep(waitMs);
    const signal = bodySignal(request.raw);
    ends.push(signal.aborted ? `aborted when asked: ${(signal.reason as { code: string }).code}` : 'not aborted when asked');
    return {};
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, ends };
}

function post(port: number, length: number, path = '/upload'): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  // The server closes while the client may still be writing: a reset then is part of the answer, not a failure.
  socket.on('error', () => undefined);
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`);
  return { socket, answer: new Promise((resolve) => socket.on('close', () => resolve(received))) };
}

describe('installBodyTimeout and bodySignal', () => {
  it('should answer 408 and close a body that stops arriving for the idle limit, aborting its signal', async () => {
    const { app, port, ends } = await start(60_000);
    try {
      const { socket, answer } = post(port, 1000);
      const began = Date.now();
      socket.write('x'.repeat(100));
      const received = await answer;
      expect(Date.now() - began).toBeGreaterThanOrEqual(IDLE_MS);
      // Far below the 60 s deadline: the idle limit ended it.
      expect(Date.now() - began).toBeLessThan(10_000);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(received).toContain(`The request body stopped arriving: nothing for ${IDLE_MS} ms`);
      expect(ends).toEqual(['aborted: request_timeout']);
    } finally {
      await app.close();
    }
  });

  it('should let a body arriving slowly but steadily run to the deadline, not the idle limit', async () => {
    const { app, port, ends } = await start(1500);
    try {
      const { socket, answer } = post(port, 1000);
      const began = Date.now();
      const drip = setInterval(() => socket.write('x'), IDLE_MS / 3);
      const received = await answer;
      clearInterval(drip);
      expect(Date.now() - began).toBeGreaterThanOrEqual(1500);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(received).toContain('The request body did not arrive whole within 1500 ms');
      expect(ends).toEqual(['aborted: request_timeout']);
    } finally {
      await app.close();
    }
  });

  it('should not count a pause while the service holds back its reading (the client is not the one waiting)', async () => {
    // The handler reads nothing for ten idle limits while a body larger than every buffer waits.
    const { app, port, ends } = await start(60_000, IDLE_MS * 10);
    try {
      const length = 8 * 1024 * 1024;
      const { socket, answer } = post(port, length);
      socket.write(Buffer.alloc(length, 1));
      const received = await answer;
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(ends).toEqual([`read ${length}`]);
    } finally {
      await app.close();
    }
  });

  it('should abort the signal of a body whose connection closed before it was read, also one whole on arrival, and of none read whole', async () => {
    const { app, port, ends } = await start(60_000, 200);
    try {
      const cut = post(port, 1000);
      cut.socket.write('x'.repeat(10), () => cut.socket.destroy());
      await cut.answer;
      await sleep(400);
      expect(ends).toEqual(['aborted: request_aborted']);
      ends.length = 0;
      const whole = post(port, 10);
      whole.socket.write('x'.repeat(10));
      expect(await whole.answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(ends).toEqual(['read 10']);
      // Whole with its headers, its client gone before the handler asked: Node dropped the unread bytes.
      ends.length = 0;
      const left = post(port, 10, '/late');
      left.socket.write('x'.repeat(10), () => left.socket.destroy());
      await left.answer;
      await sleep(400);
      const stayed = post(port, 10, '/late');
      stayed.socket.write('x'.repeat(10));
      await stayed.answer;
      expect(ends).toEqual(['aborted when asked: request_aborted', 'not aborted when asked']);
    } finally {
      await app.close();
    }
  });
});

describe('watchMultipartEnd', () => {
  const body = (chunks: string[], type = 'multipart/form-data; boundary=b0und') => {
    const raw = Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
    Object.assign(raw, { headers: { 'content-type': type } });
    return raw as unknown as Parameters<typeof watchMultipartEnd>[0];
  };
  const seen = async (chunks: string[], type?: string) => {
    const raw = body(chunks, type);
    const whole = watchMultipartEnd(raw);
    // The parser's part: reading the body.
    (raw as unknown as Readable).resume();
    await once(raw as unknown as Readable, 'end');
    return whole();
  };

  it('should see the closing delimiter within a chunk, across chunks, alone, or quoted; never a delimiter without its dashes', async () => {
    const part = '--b0und\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue';
    expect(await seen([`${part}\r\n--b0und--\r\n`])).toBe(true);
    expect(await seen([`${part}\r\n--b0`, 'und-', '-\r\nepilogue'])).toBe(true);
    expect(await seen(['--b0und--'])).toBe(true);
    expect(await seen([`${part}\r\n--b0und--`], 'multipart/form-data; boundary="b0und"')).toBe(true);
    expect(await seen([`${part}\r\n--b0und\r\n`])).toBe(false);
    expect(await seen([part])).toBe(false);
    expect(await seen([`${part}--b0und--`])).toBe(false);
    expect(await seen([`${part}\r\n--b0und--`], 'multipart/form-data')).toBe(false);
  });
});
