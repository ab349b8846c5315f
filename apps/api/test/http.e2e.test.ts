import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsString, MaxLength } from 'class-validator';
import { NotFound, ValidationFailed } from '@engage/shared-kernel';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

class EchoDto {
  @IsString()
  @MaxLength(10)
  text: string;
}

// Routes that only exist in this test, one per error path of the shared HTTP stack.
@Controller()
class ProbeController {
  @Post('functions/v1/probe-echo')
  echo(@Body() body: EchoDto) {
    return { echoed: body.text };
  }

  @Post('rest/v1/probe-echo')
  restEcho(@Body() body: EchoDto) {
    return { echoed: body.text };
  }

  @Get('functions/v1/probe-query')
  query(@Query('search') search: string) {
    return { search };
  }

  @Get('functions/v1/probe-crash')
  crash(): never {
    throw new TypeError('secret internal detail');
  }

  @Get('functions/v1/rest-api-proxy/probe')
  proxyError(): never {
    throw ValidationFailed('proxy.bad_filter', 'bad filter', undefined, 'use eq.value');
  }

  @Get('rest/v1/probe')
  restError(): never {
    throw NotFound('deal', '42');
  }

  @Get('auth/v1/probe')
  authError(): never {
    throw ValidationFailed('weak_password', 'Password is too short');
  }

  @Get('rest/v1/probe-sql')
  async sqlError(): Promise<never> {
    throw Object.assign(new Error('duplicate key value violates unique constraint "x"'), {
      code: '23505',
      constraint: 'deals_pkey',
      detail: 'Key (id)=(1) already exists.',
    });
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('HTTP stack', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'all', env: { BODY_LIMIT_BYTES: '2048', REQUEST_TIMEOUT_MS: '1000' } });
    app = await createApiApp(runtime, [ProbeModule]);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  it('should answer /healthz and /readyz with 200 and JSON', async () => {
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', bus: 'ok' } });
  });

  it('should serve Prometheus metrics with per-route counts, latency, outbox lag and jobs by state', async () => {
    await app.inject({ method: 'GET', url: '/healthz' });
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.body).toMatch(/http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    expect(metrics.body).toContain('http_request_duration_seconds_bucket');
    expect(metrics.body).toMatch(/outbox_pending_events \d+/);
    expect(metrics.body).toMatch(/outbox_oldest_pending_seconds [\d.]+/);
    expect(metrics.body).toMatch(/jobs\{state="dead"\} \d+/);
  });

  it('should serve the OpenAPI document and a reference page under /docs', async () => {
    const json = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json().openapi).toMatch(/^3\./);
    const page = await app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html');
  });

  it('should answer malformed JSON with a clear 400 in the family shape', async () => {
    const res = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', headers: { 'content-type': 'application/json' }, payload: '{"text": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_json' });
    expect(res.json().error).toMatch(/^Request body is not valid JSON: /);
  });

  it("should answer malformed JSON under /rest/v1 with PostgREST's PGRST102", async () => {
    const res = await app.inject({ method: 'POST', url: '/rest/v1/probe-echo', headers: { 'content-type': 'application/json' }, payload: '{"text": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'PGRST102',
      message: 'Empty or invalid json',
      details: expect.stringMatching(/^Request body is not valid JSON: /),
      hint: null,
    });
  });

  it('should refuse a JSON body nested deeper than BODY_MAX_DEPTH with 400, in every family', async () => {
    const deep = `{"text": ${'['.repeat(40)}${']'.repeat(40)}}`;
    const fn = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', headers: { 'content-type': 'application/json' }, payload: deep });
    expect(fn.statusCode).toBe(400);
    expect(fn.json()).toMatchObject({ code: 'body_too_deep', error: 'The JSON body nests deeper than 32 levels' });
    const rest = await app.inject({ method: 'POST', url: '/rest/v1/probe-echo', headers: { 'content-type': 'application/json' }, payload: deep });
    expect(rest.statusCode).toBe(400);
    expect(rest.json()).toMatchObject({ code: 'body_too_deep', details: { max_depth: 32 } });
  });

  it('should refuse a NUL character in a JSON field or in the URL with 400 naming where', async () => {
    const body = await app.inject({
      method: 'POST',
      url: '/functions/v1/probe-echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"text":"a\\u0000b"}',
    });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toMatchObject({ code: 'invalid_characters', error: expect.stringContaining('text contains a NUL character') });
    const query = await app.inject({ method: 'GET', url: '/functions/v1/probe-query?search=a%00b' });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ code: 'invalid_characters' });
    expect((await app.inject({ method: 'GET', url: '/functions/v1/probe-query?search=a%200b' })).json()).toEqual({ search: 'a 0b' });
  });

  it('should answer 408 and close the connection when a body stops arriving', async () => {
    if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const closed = once(socket, 'close');
    // Headers promise 100 bytes; 10 arrive, then nothing.
    socket.write('POST /functions/v1/probe-echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"a');
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('"code":"request_timeout"');
  });

  it('should leave alone a request answered without reading its body, also one injected without a connection', async () => {
    const answered = await app.inject({ method: 'GET', url: '/healthz', headers: { 'content-type': 'application/json' }, payload: '{"unread":true}' });
    expect(answered.statusCode).toBe(200);
    // Past REQUEST_TIMEOUT_MS: the body timer must find nothing to close (it threw on the injected request's socket).
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('should refuse a body over the limit with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/probe-echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ text: 'x'.repeat(5000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('should report DTO validation failures as 400 naming the field', async () => {
    const missing = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toContain('text must be a string');
    const tooLong = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', payload: { text: 'x'.repeat(11) } });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error).toContain('text must be shorter than or equal to 10 characters');
    const extra = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', payload: { text: 'ok', admin: true } });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error).toContain('property admin should not exist');
    const ok = await app.inject({ method: 'POST', url: '/functions/v1/probe-echo', payload: { text: 'ok' } });
    expect(ok.json()).toEqual({ echoed: 'ok' });
  });

  it('should turn an unexpected error into a 500 with the request id, never leaking its message', async () => {
    const res = await app.inject({ method: 'GET', url: '/functions/v1/probe-crash', headers: { 'x-request-id': 'req-abc-123' } });
    expect(res.statusCode).toBe(500);
    expect(res.headers['x-request-id']).toBe('req-abc-123');
    expect(res.json()).toEqual({ error: 'Internal error (request id req-abc-123)', code: 'internal_error' });
    expect(res.body).not.toContain('secret');
  });

  it('should render each API family in its own shape', async () => {
    const proxy = await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/probe' });
    expect(proxy.statusCode).toBe(400);
    expect(proxy.json()).toMatchObject({ error: 'bad filter', hint: 'use eq.value', code: 'proxy.bad_filter' });

    const rest = await app.inject({ method: 'GET', url: '/rest/v1/probe' });
    expect(rest.statusCode).toBe(404);
    expect(rest.json()).toEqual({ code: 'deal.not_found', message: 'deal 42 not found', details: { id: '42' }, hint: null });

    const sql = await app.inject({ method: 'GET', url: '/rest/v1/probe-sql' });
    expect(sql.statusCode).toBe(409);
    // An unmapped integrity violation: a stable code, our own words, the constraint; none of PostgreSQL's text.
    expect(sql.json()).toEqual({
      code: 'unique_violation',
      message: 'A record with the same value already exists',
      details: { constraint: 'deals_pkey' },
      hint: null,
    });
    expect(sql.body).not.toMatch(/duplicate key|Key \(id\)/);

    const legacyAuth = await app.inject({ method: 'GET', url: '/auth/v1/probe' });
    // GoTrue answers weak_password with 422 where our default for validation is 400.
    expect(legacyAuth.statusCode).toBe(422);
    expect(legacyAuth.json()).toEqual({ code: 422, error_code: 'weak_password', msg: 'Password is too short' });

    const versionedAuth = await app.inject({ method: 'GET', url: '/auth/v1/probe', headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(versionedAuth.json()).toEqual({ code: 'weak_password', message: 'Password is too short' });
    expect(versionedAuth.headers['x-supabase-api-version']).toBe('2024-01-01');
    expect(versionedAuth.headers['x-sb-error-code']).toBe('weak_password');

    const unknownRoute = await app.inject({ method: 'GET', url: '/rest/v1/nothing/here' });
    expect(unknownRoute.statusCode).toBe(404);
    expect(unknownRoute.json()).toMatchObject({ code: 'not_found' });
  });

  it('should give every response a request id, generating one when the caller sent none or a bad one', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('should let browser clients (supabase-js) send their headers and read content-range', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/rest/v1/deals',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'apikey,authorization,prefer,range,x-client-info',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/);
    for (const header of ['apikey', 'authorization', 'prefer', 'range', 'x-client-info']) expect(allowed).toContain(header);
    const simple = await app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'https://app.example.com' } });
    expect(String(simple.headers['access-control-expose-headers'])).toContain('content-range');
  });
});
