import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';
import { scrubText } from './log';

// Nest's own messages (module wiring, routes) go to the same pino logger as everything else.
export class NestPinoLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, context?: string): void {
    this.pino.debug({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.pino.error({ context, trace: typeof trace === 'string' ? scrubText(trace) : undefined }, scrubText(String(message)));
  }

  warn(message: unknown, context?: string): void {
    this.pino.warn({ context }, scrubText(String(message)));
  }

  debug(message: unknown, context?: string): void {
    this.pino.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.pino.trace({ context }, String(message));
  }
}
