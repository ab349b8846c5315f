import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '@engage/shared-kernel';

const KEY = 'engageFormBody';
// Provider callbacks are a few dozen short parameters.
export const FORM_BODY_LIMIT_BYTES = 64 * 1024;

// A route taking an application/x-www-form-urlencoded body: its handler receives the body as the
// text sent (the signature covers the decoded parameters, which the handler reads in order).
export const FormBody = (): MethodDecorator => RouteConfig({ [KEY]: true });

const isFormRoute = (request: FastifyRequest) => Boolean((request.routeOptions?.config as unknown as Record<string, unknown> | undefined)?.[KEY]);

// Registers the form parser for the routes marked FormBody only: every other route still refuses a
// form body with 415, as it did before.
@Injectable()
export class FormBodyParser implements OnModuleInit {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify?.addContentTypeParser || fastify.hasContentTypeParser('application/x-www-form-urlencoded')) return;
    fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (request, body, done) => {
      if (!isFormRoute(request)) {
        return done(new DomainError('unsupported_media_type', 'unsupported_media_type', 'This route does not take form bodies'), undefined);
      }
      done(null, body);
    });
  }
}
