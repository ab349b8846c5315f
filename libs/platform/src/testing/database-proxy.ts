import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket, connect } from 'node:net';

// A TCP relay in front of a test database: stop() is an outage as a restart looks to the service
// (every open connection cut, new ones refused), start() brings it back on the same port.
export class DatabaseProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  // The server of a database URL: a TCP address, or PostgreSQL's Unix socket in the directory its
  // `host` parameter names (the embedded test server's).
  private readonly target: { host: string; port: number } | { path: string };

  constructor(serverUrl: string) {
    const url = new URL(serverUrl);
    const port = Number(url.port || 5432);
    const directory = url.searchParams.get('host');
    this.target = directory?.startsWith('/') ? { path: `${directory}/.s.PGSQL.${port}` } : { host: url.hostname, port };
  }

  // The database URL as seen through the relay.
  urlOf(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.searchParams.delete('host');
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
