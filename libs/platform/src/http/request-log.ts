import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

// One line per request at info level, written after the response; nothing is built per request
// when info is off. (Per-request child loggers cost more than the routes we serve.)
export function installRequestLog(fastify: FastifyInstance, log: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!log.isLevelEnabled('info')) return done();
    log.info(
      { reqId: request.id, method: request.method, url: request.url.split('?')[0], statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });
}
