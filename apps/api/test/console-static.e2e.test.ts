import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { contentSecurityPolicy } from '../src/console-static';
import { createApiApp } from '../src/create-api-app';

// The web console at /app/ (apps/api/src/console-static.ts), served from a build made here: an
// index.html as Vite writes it and one hashed asset.
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
const INDEX = `<!doctype html><html><head><meta name="engage-anon-key" content="__ENGAGE_ANON_KEY__" />
<script type="module" crossorigin src="/app/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>`;

describe('the web console at /app/', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let unbuilt: NestFastifyApplication;
  const dirs: string[] = [];

  const built = () => {
    const dir = mkdtempSync(join(tmpdir(), 'engage-console-build-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), SCRIPT);
    return dir;
  };

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS });
    app = await createApiApp(runtime, [], { directory: built() });
    const empty = mkdtempSync(join(tmpdir(), 'engage-console-empty-'));
    dirs.push(empty);
    unbuilt = await createApiApp(runtime, [], { directory: empty });
  });

  afterAll(async () => {
    await app?.close();
    await unbuilt?.close();
    await runtime?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const get = (target: NestFastifyApplication, url: string, headers: Record<string, string> = {}) =>
    target.inject({ method: 'GET', url, headers: { host: 'console.test:3000', ...headers } });

  it('should serve index.html uncached, with the anon key and a CSP without inline script', async () => {
    const response = await get(app, '/app/', { accept: 'text/html' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).not.toContain('__ENGAGE_ANON_KEY__');
    expect(response.body).toMatch(/name="engage-anon-key" content="[\w-]+\.[\w-]+\.[\w-]+"/);
    const csp = String(response.headers['content-security-policy']);
    const directives = Object.fromEntries(csp.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]));
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'ws://console.test:3000', 'wss://console.test:3000']);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['img-src']).toEqual(["'self'", 'data:', 'blob:']);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('should let images and media come from the object storage’s public origin (CDN_URL) and nowhere else', () => {
    const directives = Object.fromEntries(
      contentSecurityPolicy('console.test:3000', ['https://cdn.example.test'])
        .split('; ')
        .map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]),
    );
    expect(directives['img-src']).toEqual(["'self'", 'data:', 'blob:', 'https://cdn.example.test']);
    expect(directives['media-src']).toEqual(["'self'", 'blob:', 'https://cdn.example.test']);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'ws://console.test:3000', 'wss://console.test:3000']);
  });

  it('should serve hashed assets cached for a year as immutable, gzipped when the client accepts it', async () => {
    const plain = await get(app, '/app/assets/index-AbC123.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(SCRIPT);
    const gzipped = await get(app, '/app/assets/index-AbC123.js', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(String(gzipped.headers.vary)).toMatch(/accept-encoding/i);
    expect(gunzipSync(gzipped.rawPayload).toString('utf8')).toBe(SCRIPT);
  });

  it('should answer a deep link under /app/ with index.html (SPA fallback)', async () => {
    for (const url of ['/app/contacts', '/app/deals/42?tab=history', '/app/verify?token=abc&type=signup']) {
      const response = await get(app, url, { accept: 'text/html' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('<div id="root">');
    }
    expect((await get(app, '/app')).headers.location).toBe('/app/');
  });

  it('should answer 404, not index.html, for a missing asset', async () => {
    const response = await get(app, '/app/assets/index-Old999.js');
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('<html');
  });

  it('should redirect a browser asking for / to /app/ and leave other requests for / as they were', async () => {
    const browser = await get(app, '/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/app/');
    const client = await get(app, '/', { accept: 'application/json' });
    expect(client.statusCode).toBe(404);
    expect(client.headers['content-type']).toMatch(/application\/json/);
  });

  it('should leave the API routes as they were', async () => {
    const health = await get(app, '/healthz', { accept: 'text/html' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok' });
    const onboarding = await get(app, '/functions/v1/onboarding', { accept: 'text/html' });
    expect(onboarding.statusCode).toBe(401);
    expect(onboarding.headers['content-security-policy']).toBeUndefined();
  });

  it('should say how to build the console when it is not built', async () => {
    const response = await get(unbuilt, '/app/', { accept: 'text/html' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain('npm run build');
  });
});
