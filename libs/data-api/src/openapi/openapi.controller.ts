import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Database, OpenApiParts } from '@engage/platform';
import type { Registry } from '../registry';
import { DATA_API_REGISTRY } from '../http/rest.controller';
import { type DataApiDescription, dataApiPaths, restRootDocument } from './rest-document';
import type { Nullability } from './table-schemas';

const NOT_NULL = `SELECT table_name, column_name FROM information_schema.columns
  WHERE table_schema = current_schema() AND is_nullable = 'NO' AND table_name = ANY($1::text[])`;

// Describes the registry's tables for /docs (both families) and for GET /rest/v1/. Which columns
// are NOT NULL is read once from the database's catalogue, as PostgREST's schema cache does.
@Injectable()
export class DataApiOpenApi implements OnModuleInit {
  private notNull: Nullability = new Map();

  constructor(
    @Inject(DATA_API_REGISTRY) private readonly registry: Registry,
    private readonly db: Database,
    private readonly parts: OpenApiParts,
    private readonly http: HttpAdapterHost,
  ) {}

  async onModuleInit(): Promise<void> {
    const rows = await this.db.systemQuery<{ table_name: string; column_name: string }>(NOT_NULL, [[...this.registry.tables.keys()]]);
    const notNull = new Map<string, Set<string>>();
    for (const row of rows) notNull.set(row.table_name, (notNull.get(row.table_name) ?? new Set()).add(row.column_name));
    this.notNull = notNull;
    // The worker has no HTTP server.
    const fastify = this.http.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify) serveRestRoot(fastify, () => this.description());
    this.parts.add(() => {
      const rest = dataApiPaths(this.description(), 'rest', '/rest/v1');
      const proxy = dataApiPaths(this.description(), 'proxy', '/functions/v1/rest-api-proxy');
      return { paths: { ...rest.paths, ...proxy.paths }, components: rest.components };
    });
  }

  description(): DataApiDescription {
    return { registry: this.registry, writable: (table) => this.registry.tables.get(table)?.writable === true, notNull: this.notNull };
  }
}

const OPENAPI_MEDIA = ['application/openapi+json', 'application/json', 'application/*', '*/*'];

// PostgREST answers its root with the OpenAPI description of what it serves; clients ask for
// /rest/v1/ (with the slash), which Nest's routes cannot tell from /rest/v1, so Fastify serves both.
export function serveRestRoot(fastify: FastifyInstance, describe: () => DataApiDescription): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const asked = (request.headers.accept ?? '*/*').split(',').map((part) => part.split(';')[0].trim().toLowerCase());
    const media = asked.find((type) => OPENAPI_MEDIA.includes(type));
    if (!media) {
      const message = `None of these media types are available: ${asked.join(', ').slice(0, 200)}`;
      return reply.status(406).send({ code: 'PGRST107', message, details: null, hint: null });
    }
    const type = media === 'application/openapi+json' ? 'application/openapi+json' : 'application/json';
    return reply.status(200).header('content-type', `${type}; charset=utf-8`).send(restRootDocument(describe(), '1'));
  };
  fastify.get('/rest/v1', handler);
  fastify.get('/rest/v1/', handler);
}
