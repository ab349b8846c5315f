import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ValidationPipe } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type pino from 'pino';
import { ValidationFailed } from '@engage/shared-kernel';
import type { Config } from '../config/settings';
import { OrgGate } from './org-gate';
import { installGatedRoutes } from './gated-routes';
import { PLATFORM_LOG } from '../runtime/tokens';
import { AllErrorsFilter } from './all-errors.filter';
import { familyOf, renderProblem } from './error-families';
import { Metrics } from './metrics';
import { OpenApiParts } from './openapi-parts';
import { installRequestLog } from './request-log';
import { checkJsonBody } from './json-body-check';
import { installBodyTimeout } from './body-timeout';
import { installRawBodyRoutes, isRawBodyRoute } from './raw-body';
import { NestPinoLogger } from '../runtime/nest-logger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

function jsonSyntaxError(body: Buffer): string {
  try {
    JSON.parse(body.toString('utf8'));
    return 'rejected by the parser';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

// Errors Fastify's router answers before any handler (a URL it cannot decode, a path parameter
// longer than its limit), in the URL family's body like every other error.
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_BAD_URL: { status: 400, code: 'bad_url', message: 'The request URL cannot be decoded' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', message: 'A path parameter is longer than 100 characters' },
};

type FrameworkReply = { status(code: number): FrameworkReply; headers(values: Record<string, string>): FrameworkReply; send(body: unknown): unknown };

function frameworkError(
  error: { code?: string; message: string },
  request: { url: string; headers: Record<string, string | string[] | undefined> },
  reply: FrameworkReply,
) {
  const known = FRAMEWORK_ERRORS[error.code ?? ''] ?? { status: 400, code: 'bad_request', message: 'The request cannot be routed' };
  const rendered = renderProblem(familyOf(request.url), known, request.headers);
  return reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
}

export function createFastifyAdapter(config: Config): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Headers that do not arrive whole in time: Node answers 408 (the body is timed by body-timeout.ts).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    requestIdHeader: false,
    frameworkErrors: frameworkError as never,
    // request.ip follows X-Forwarded-For only through the proxies named here.
    trustProxy: config.TRUST_PROXY.length > 0 ? config.TRUST_PROXY : false,
    // A caller's x-request-id is kept when it is sane, so logs can be joined across services.
    genReqId: (request: IncomingMessage) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
}

// Headers supabase-js and other browser clients send and read.
const CORS_ALLOWED = [
  'apikey',
  'authorization',
  'content-type',
  'prefer',
  'range',
  'range-unit',
  'x-client-info',
  'x-api-key',
  'x-request-id',
  'accept-profile',
  'content-profile',
  'x-supabase-api-version',
];
const CORS_EXPOSED = [
  'content-range',
  'content-location',
  'location',
  'preference-applied',
  'x-request-id',
  'x-supabase-api-version',
  'x-sb-error-code',
  'retry-after',
];

export async function configureHttp(app: NestFastifyApplication, config: Config): Promise<void> {
  const log = app.get<pino.Logger>(PLATFORM_LOG);
  app.useLogger(new NestPinoLogger(log));
  const fastify = app.getHttpAdapter().getInstance();
  // Fastify's JSON parser, with its error turned into our own clear 400 (Nest would otherwise
  // wrap it into a generic HttpException and lose the reason).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  installRawBodyRoutes(fastify);
  app.useBodyParser('application/json', { bodyLimit: config.BODY_LIMIT_BYTES }, (request, body, done) => {
    if (isRawBodyRoute(request as FastifyRequest)) return done(null, body);
    // Clients (auth-js signOut) send an empty body with a JSON content type: treat it as no body.
    if ((body as Buffer).length === 0) return done(null, undefined);
    parseJson(request as Parameters<typeof parseJson>[0], body as unknown as string, (error: Error | null, value?: unknown) => {
      if (error && (error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return done(ValidationFailed('invalid_json', `Request body is not valid JSON: ${jsonSyntaxError(body as Buffer)}`), undefined);
      }
      if (error) return done(error, undefined);
      const refused = checkJsonBody(value, config.BODY_MAX_DEPTH);
      done(refused, refused ? undefined : value);
    });
  });
  // PostgreSQL cannot store or compare U+0000; a query parameter carrying one (a search term, a
  // filter value) is refused here once instead of failing inside a statement.
  // (Callback hooks here and below: an async hook costs each request a promise and a microtask.)
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.includes('%00')) return done();
    done(ValidationFailed('invalid_characters', 'The request URL contains a NUL character (%00), which cannot be stored or matched'));
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  installBodyTimeout(fastify, { deadlineMs: config.REQUEST_TIMEOUT_MS, idleMs: config.REQUEST_BODY_IDLE_MS });
  app.get(Metrics).install(fastify);
  installRequestLog(fastify, log);
  app.useGlobalFilters(new AllErrorsFilter(log));
  const gate = app.get(OrgGate);
  app.get(Metrics).watchGate(gate);
  installGatedRoutes(fastify);
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  app.enableCors({
    origin: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_ALLOWED,
    exposedHeaders: CORS_EXPOSED,
    maxAge: 600,
  });

  // Built on the first request to /docs, once every module has added its parts.
  const document = () =>
    app
      .get(OpenApiParts)
      .mergeInto(
        SwaggerModule.createDocument(
          app,
          new DocumentBuilder()
            .setTitle('Engage API')
            .setDescription('Omnichannel customer engagement: messaging, CRM, automation, webhooks and billing. See docs/ in the repository.')
            .setVersion('1')
            .addBearerAuth()
            .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api-key')
            .build(),
        ),
      );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
}
