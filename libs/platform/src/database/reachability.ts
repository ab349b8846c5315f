import { DatabaseFailure } from './database-failure';

// SQLSTATEs and socket codes that say the database cannot be reached (or will not take work now):
// class 08 (connection exceptions), 57P01-57P03 (shut down, crashed, starting up), 53300 (too many
// connections), and the socket's own failures.
const UNREACHABLE_CODES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// Whether a database error means "unreachable" rather than "refused this statement". A failure with
// neither a SQLSTATE nor a driver code is the driver's own report of a lost or closed connection
// (pg raises those without a code).
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof DatabaseFailure)) return false;
  if (error.connecting) return true;
  if (error.code !== undefined) return UNREACHABLE_CODES.has(error.code);
  return error.severity === undefined;
}

// Whether the database answers, as this process last saw it: told once when it stops answering
// and once when it answers again, however many requests fail in between.
export class Reachability {
  private reachable = true;
  private listener: (reachable: boolean, error?: unknown) => void = () => undefined;

  get isReachable(): boolean {
    return this.reachable;
  }

  onChange(listener: (reachable: boolean, error?: unknown) => void): void {
    this.listener = listener;
  }

  failed(error: unknown): void {
    if (!this.reachable || !isUnreachable(error)) return;
    this.reachable = false;
    this.listener(false, error);
  }

  answered(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.listener(true);
  }
}
