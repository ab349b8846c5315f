import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '@engage/shared-kernel';

// text/csv bodies reach the import handler as a stream, unbuffered: imports are parsed while they
// upload (the import service bounds their size). multipart/form-data is handled by
// @fastify/multipart, whose parser only marks the request: nothing is read until a handler asks for
// a part, so other routes and the JSON body limit are untouched (a multipart body sent to a JSON
// route is refused by its validation).
@Injectable()
export class CsvBodyParser implements OnModuleInit {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify?.addContentTypeParser) return;
    if (!fastify.hasContentTypeParser('text/csv'))
      fastify.addContentTypeParser('text/csv', (request, payload, done) => done(null, uploadBody(request.raw, payload)));
    if (!fastify.hasContentTypeParser('multipart/form-data')) void fastify.register(fastifyMultipart, { throwFileSizeLimit: true });
  }
}

// Node destroys a request whose connection closes before the answer is sent, and the bytes not yet
// read go with it, even when the whole body had arrived. So once the body is complete, what is
// still unread (at most a buffer's worth: the socket is paused while the import catches up) moves
// into a stream the import owns, and a client hanging up after its upload no longer stops the
// import. A connection lost before the body is complete fails the upload with that reason.
export function uploadBody(raw: IncomingMessage, payload: Readable): Readable {
  const body = new PassThrough();
  // It may fail before the import listens (while the caller is authenticated, or waits for a gate
  // slot): the import reads the failure from its state; unheard, the event would end the process.
  body.on('error', () => undefined);
  let detached = false;
  payload.pipe(body);
  const detach = () => {
    if (detached || !raw.complete || payload !== raw) return;
    detached = true;
    payload.unpipe(body);
    for (let chunk = raw.read() as Buffer | null; chunk !== null; chunk = raw.read() as Buffer | null) body.write(chunk);
    body.end();
  };
  const brokenOff = () => {
    detach();
    if (!detached && !payload.readableEnded)
      body.destroy(new DomainError('validation', 'import.upload_aborted', 'the upload broke off before the whole file arrived'));
  };
  raw.socket?.once('end', detach);
  // Closed by the body timeout after its 408, the request itself reports nothing: the socket does.
  raw.socket?.once('close', brokenOff);
  body.once('close', () => raw.socket?.off('close', brokenOff)); // a keep-alive socket outlives the upload
  raw.once('aborted', brokenOff);
  payload.once('error', brokenOff);
  payload.once('close', () => {
    if (!payload.readableEnded) brokenOff();
  });
  return body;
}
