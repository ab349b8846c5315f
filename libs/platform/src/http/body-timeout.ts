import type { FastifyInstance } from 'fastify';
import { familyOf, renderProblem } from './error-families';

// A request whose body has not arrived whole within the limit is answered 408 and its connection
// closed, so a client that stops sending (or drips bytes) cannot hold a connection, and the import
// or handler reading it, open. Node's own requestTimeout stops counting once the request reaches
// the listener, which is before the body is read, so the body is timed here.
export function installBodyTimeout(fastify: FastifyInstance, timeoutMs: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] === undefined)) return done();
    const timer = setTimeout(() => {
      // Only a real connection can be closed (an injected request has none); a body that did
      // arrive, or a connection already gone, needs nothing.
      const socket = raw.socket as Partial<typeof raw.socket> | undefined;
      if (raw.complete || typeof socket?.destroy !== 'function' || socket.destroyed) return;
      const close = () => socket.destroy!();
      // Answered before the body was read (e.g. a 401): the rest of the body is still not coming.
      if (reply.sent) return close();
      const problem = { status: 408, code: 'request_timeout', message: `The request body did not arrive whole within ${timeoutMs} ms` };
      const rendered = renderProblem(familyOf(request.url), problem, request.headers);
      reply.raw.once('finish', close);
      void reply
        .code(408)
        .headers({ ...rendered.headers, connection: 'close' })
        .send(rendered.body);
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    done();
  });
}
