import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

// text/csv bodies reach the import handler as the raw stream, unbuffered: imports are parsed
// while they upload (the import service bounds their size).
@Injectable()
export class CsvBodyParser implements OnModuleInit {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify?.addContentTypeParser || fastify.hasContentTypeParser('text/csv')) return;
    fastify.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
  }
}
