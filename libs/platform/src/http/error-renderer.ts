import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { familyOf, renderProblem } from './error-families';
import { toProblem } from './to-problem';

// The one place where thrown errors become HTTP responses, for Nest handlers and for Fastify's own
// errors (bad JSON, body too large, unknown routes) alike.
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, log: Logger): void {
  let problem = toProblem(error);
  if (problem === null) {
    // The path only: query strings carry tokens (email links) and filter values.
    log.error({ err: error, reqId: request.id, url: request.url.split('?')[0], method: request.method }, 'unhandled error');
    problem = { status: 500, code: 'internal_error', message: `Internal error (request id ${request.id})` };
  }
  const rendered = renderProblem(familyOf(request.url), problem, request.headers);
  if (reply.sent) return;
  void reply
    .status(rendered.status)
    .headers({ ...rendered.headers, 'content-type': 'application/json; charset=utf-8' })
    .send(rendered.body);
}
