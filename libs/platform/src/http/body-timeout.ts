import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '@engage/shared-kernel';
import { familyOf, renderProblem } from './error-families';

export interface BodyLimits {
  // The whole body must have arrived this long after the request began (REQUEST_TIMEOUT_MS).
  deadlineMs: number;
  // Longest pause in its arrival while the service waits for it (REQUEST_BODY_IDLE_MS).
  idleMs: number;
}

const WATCH = Symbol('request body watch');

interface Watch {
  controller: AbortController;
  // Why the body can no longer be read, when the watch itself ended it (a time-out).
  reason?: DomainError;
  // The body was read to its end, or cannot be any more: nothing more to watch.
  settle(): void;
}
type Watched = IncomingMessage & { [WATCH]?: Watch };

// Why a body that had not been read whole can no longer be: a time-out (answered 408 here) or a
// connection that closed. 400 should a handler still answer with it; the 408 is sent first.
const timedOut = (what: string) => new DomainError('validation', 'request_timeout', `the request body ${what}`);
const lost = () => new DomainError('validation', 'request_aborted', 'the connection closed before the request body was read whole');

// Aborted, with one of the reasons above, when the request's body can no longer be read whole: it
// stopped arriving (REQUEST_BODY_IDLE_MS), did not arrive in time (REQUEST_TIMEOUT_MS), or its
// connection closed before it was read (the client gone, or closed after the 408; Node then drops
// even bytes that had arrived but were not read, so this holds for a body that arrived whole with
// its headers too). Handlers that read a body as it arrives race their reads against it, so that
// they end, and give their gate slot back, whatever becomes of the body. Its state is kept: asked
// after the fact it is already aborted. Never aborted for an injected request (no connection).
export function bodySignal(raw: IncomingMessage): AbortSignal {
  return ((raw as Watched)[WATCH] ?? watch(raw as Watched)).controller.signal;
}

// Aborts the watch's signal when the request's connection or the request itself closes before its
// body was read to its end. Made when the body starts arriving, or when a handler first asks.
function watch(raw: Watched): Watch {
  const controller = new AbortController();
  const socket = raw.socket instanceof Socket ? raw.socket : undefined;
  const state: Watch = { controller, settle: () => undefined };
  raw[WATCH] = state;
  if (raw.readableEnded) return state;
  function gone() {
    state.settle();
    if (!raw.readableEnded && !controller.signal.aborted) controller.abort(state.reason ?? lost());
  }
  // Gone before anyone asked.
  if (raw.destroyed || socket?.destroyed) {
    gone();
    return state;
  }
  const onEnd = () => state.settle();
  state.settle = () => {
    socket?.off('close', gone);
    raw.off('close', gone);
    raw.off('end', onEnd);
  };
  // A keep-alive socket outlives the request: its listener goes when the body has been read.
  socket?.once('close', gone);
  raw.once('close', gone);
  raw.once('end', onEnd);
  return state;
}

// Rejects with the signal's reason when it aborts (at once when it has), else settles as `work`.
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

// A request whose body stops arriving, or does not arrive whole within the deadline, is answered
// 408 and its connection closed, so a client that stops sending (or drips bytes) cannot hold a
// connection, nor the upload or handler reading it and the gate slot that handler holds. Node's
// own requestTimeout stops counting once the request reaches the listener, which is before the
// body is read, so the body is timed here. A pause counts only while the service is ready for
// more: while its reader holds back (the request's buffer full, the socket paused: an import
// writing a batch, a slow storage), the client is not the one waiting. The socket's byte count is
// looked at every quarter of the idle limit (at most every second), so a pause is noticed within
// a quarter of the limit after it, and the deadline within a second.
export function installBodyTimeout(fastify: FastifyInstance, limits: BodyLimits): void {
  const step = Math.max(10, Math.min(1000, Math.floor(limits.idleMs / 4)));
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw as Watched;
    const socket = raw.socket;
    // Only a real connection can stall or be closed (an injected request has its body whole).
    if (raw.complete || !(socket instanceof Socket) || (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] === undefined)) {
      return done();
    }
    const state = watch(raw);
    const started = Date.now();
    let bytes = socket.bytesRead;
    let progressed = started;
    let timer: NodeJS.Timeout | undefined;
    const unwatch = state.settle;
    state.settle = () => {
      clearTimeout(timer);
      unwatch();
    };
    const expire = (why: DomainError) => {
      state.reason = why;
      const close = () => socket.destroy();
      // Answered before the body was read (e.g. a 401): the rest of the body is still not coming.
      if (reply.sent || socket.destroyed) return close();
      const rendered = renderProblem(familyOf(request.url), { status: 408, code: why.code, message: capitalised(why.message) }, request.headers);
      reply.raw.once('finish', close);
      // A client that reads nothing would keep the answer, and the connection, pending.
      setTimeout(close, 1000).unref();
      void reply
        .code(408)
        .headers({ ...rendered.headers, connection: 'close' })
        .send(rendered.body);
    };
    const check = () => {
      if (raw.complete || socket.destroyed) return;
      const now = Date.now();
      if (socket.bytesRead !== bytes || raw.readableLength >= raw.readableHighWaterMark) {
        bytes = socket.bytesRead;
        progressed = now;
      }
      if (now - started >= limits.deadlineMs) return expire(timedOut(`did not arrive whole within ${limits.deadlineMs} ms`));
      if (now - progressed >= limits.idleMs) return expire(timedOut(`stopped arriving: nothing for ${limits.idleMs} ms`));
      timer = setTimeout(check, Math.min(step, limits.deadlineMs - (now - started)));
      timer.unref();
    };
    timer = setTimeout(check, Math.min(step, limits.deadlineMs));
    timer.unref();
    done();
  });
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
