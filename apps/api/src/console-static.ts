import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdentityModule, TokenService } from '@engage/identity';
import { CONFIG, type Config } from '@engage/platform';

// The web console (apps/console), built by scripts/build.mjs into dist/console, served at /app/:
// hashed assets cached for a year, index.html never cached and carrying the anon key, every deep
// link under /app/ answered with index.html, and a browser asking for / sent to /app/.
// Plain Fastify routes: no guard, pipe or filter of the API applies to them (docs/console.md).

const CONSOLE_OPTIONS = Symbol('CONSOLE_OPTIONS');
const ANON_KEY_PLACEHOLDER = '__ENGAGE_ANON_KEY__';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface ConsoleFile {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  cacheControl: string;
}

export interface ConsoleOptions {
  // The folder of the built console; default dist/console of the repository.
  directory?: string;
}

export function consoleDirectory(): string {
  // __dirname is apps/api/src (tests) or dist/out/apps/api/src (the build).
  for (let dir = __dirname; ; dir = resolve(dir, '..')) {
    if (existsSync(join(dir, 'nx.json'))) return join(dir, 'dist', 'console');
    if (resolve(dir, '..') === dir) return resolve('dist', 'console');
  }
}

// script-src 'self' only: no inline script. connect-src: the API itself, and its WebSocket for
// realtime (a ws: URL is not covered by 'self' in every browser). img-src and media-src: also the
// object storage's public origin (CDN_URL), where re-hosted attachments live.
export function contentSecurityPolicy(host: string | undefined, mediaOrigins: string[] = []): string {
  const sockets = host && /^[\w.:[\]-]+$/.test(host) ? ` ws://${host} wss://${host}` : '';
  const media = mediaOrigins.map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${media}`,
    `media-src 'self' blob:${media}`,
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function loadFiles(directory: string, anonKey: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !entry.name.startsWith('.')) {
        const name = relative(directory, path).split(sep).join('/');
        let body = readFileSync(path);
        if (name === 'index.html') body = Buffer.from(body.toString('utf8').replace(ANON_KEY_PLACEHOLDER, anonKey));
        const type = TYPES[extname(name)] ?? 'application/octet-stream';
        const compressible = /^(text\/|image\/svg|application\/json)/.test(type) && body.length > 1024;
        files.set(name, {
          body,
          gzipped: compressible ? gzipSync(body, { level: 9 }) : undefined,
          type,
          cacheControl: name.startsWith('assets/') ? IMMUTABLE : 'no-cache',
        });
      }
    }
  };
  if (existsSync(join(directory, 'index.html'))) walk(directory);
  return files;
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, mediaOrigins: string[]): FastifyReply {
  reply
    .header('content-type', file.type)
    .header('cache-control', file.cacheControl)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
  if (file.type.startsWith('text/html')) {
    reply.header('content-security-policy', contentSecurityPolicy(request.headers.host, mediaOrigins)).header('x-frame-options', 'DENY');
  }
  if (file.gzipped) {
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(file.gzipped);
    }
  }
  return reply.send(file.body);
}

export function installConsoleRoutes(fastify: FastifyInstance, files: Map<string, ConsoleFile>, mediaOrigins: string[] = []): void {
  const wantsHtml = (request: FastifyRequest) => String(request.headers.accept ?? '').includes('text/html');
  // Only GET / from a browser: every other request for / is answered as before.
  fastify.addHook('onRequest', (request, reply, done) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && (request.url === '/' || request.url.startsWith('/?')) && wantsHtml(request)) {
      void reply.header('vary', 'Accept').redirect('/app/', 302);
      return;
    }
    done();
  });
  fastify.get('/app', (_request, reply) => reply.redirect('/app/', 301));
  fastify.get('/app/*', (request, reply) => {
    const index = files.get('index.html');
    if (!index) {
      return reply
        .code(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send('The console is not built: run `npm run build` (npm start builds it).\n');
    }
    const name = decodeURIComponent((request.params as { '*': string })['*'] ?? '');
    const file = files.get(name);
    if (file) return send(request, reply, file, mediaOrigins);
    // A missing asset is a 404 (a stale page asking for an old hash must not get HTML as script);
    // any other path under /app/ is a page of the console (SPA fallback).
    if (name.startsWith('assets/') || (extname(name) !== '' && !wantsHtml(request))) {
      return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-cache').send('Not found\n');
    }
    return send(request, reply, index, mediaOrigins);
  });
}

@Module({})
export class ConsoleModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly tokens: TokenService,
    @Inject(CONSOLE_OPTIONS) private readonly options: ConsoleOptions,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  static forRoot(options: ConsoleOptions = {}): DynamicModule {
    return { module: ConsoleModule, imports: [IdentityModule], providers: [{ provide: CONSOLE_OPTIONS, useValue: options }] };
  }

  // Runs inside app.init(), before Fastify is ready, so the routes can still be added.
  async onModuleInit(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const files = loadFiles(this.options.directory ?? consoleDirectory(), await this.tokens.issueAnonKey());
    installConsoleRoutes(fastify, files, this.config.CDN_URL ? [new URL(this.config.CDN_URL).origin] : []);
  }
}
