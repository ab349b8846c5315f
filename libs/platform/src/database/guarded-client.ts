import type { Duplex } from 'node:stream';
import { Client, type ClientConfig } from 'pg';

type DataListener = (chunk: Buffer) => void;

// pg-protocol parses what the server sends inside the socket's 'data' handler. What it throws there
// (ERR_STRING_TOO_LONG for a value beyond V8's longest string, a RangeError for a malformed
// message) reaches no caller: it is an uncaught exception and the process exits. This client wraps
// that handler and destroys the socket with the error instead: the query on it fails, the client
// emits 'error' (every client has a listener, see data-source.ts) and the pool drops it.
export class GuardedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    const connection = (this as unknown as { connection: { attachListeners(stream: Duplex): void } }).connection;
    const attach = connection.attachListeners.bind(connection);
    connection.attachListeners = (stream: Duplex) => {
      const before = new Set(stream.listeners('data'));
      attach(stream);
      for (const listener of stream.listeners('data') as DataListener[]) {
        if (before.has(listener)) continue;
        stream.removeListener('data', listener);
        stream.on('data', (chunk: Buffer) => {
          try {
            listener(chunk);
          } catch (error) {
            stream.destroy(error as Error);
          }
        });
      }
    };
  }
}
