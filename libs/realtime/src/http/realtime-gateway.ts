import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type pino from 'pino';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { Authenticator, TokenService } from '@engage/identity';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { CONFIG, type Config, Database, PLATFORM_LOG, settingsOf } from '@engage/platform';
import { type Grant, JoinAuthorizer } from '../application/join-authorizer';
import { RealtimeHub } from '../application/realtime-hub';
import { CLOSE, SocketSession } from '../application/socket-session';
import { VSNS, type Vsn } from '../domain/phoenix-frame';
import { ChangeListener } from '../infrastructure/change-listener';
import { RENEW_MS, WatchedOrganizations } from '../infrastructure/watched-organizations';
import { RowReader } from '../infrastructure/row-reader';
import { REALTIME_SETTINGS } from '../realtime.settings';

export const REALTIME_PATH = '/realtime/v1/websocket';
// Largest frame a client may send (a join with its bindings is well under 8 KB); ws closes with 1009 above it.
const MAX_FRAME_BYTES = 64 * 1024;
// A client that sends nothing for this long (realtime-js heartbeats every 25 s) is gone.
const IDLE_MS = 60_000;
// How often joined channels' credentials are checked again (sign-out, removed member, revoked key).
const RECHECK_MS = 60_000;

// Serves /realtime/v1/websocket on the api's HTTP server. ws (the WebSocket library Node servers
// and @fastify/websocket itself build on) takes the upgrade directly from the server, beside
// Fastify's routes and outside its hooks, so no plugin has to be registered before Nest adds its
// routes. Only an api process serves it: the worker has no HTTP server.
@Injectable()
export class RealtimeGateway implements OnApplicationBootstrap, OnModuleDestroy {
  private server: WebSocketServer | undefined;
  private listener: ChangeListener | undefined;
  private readonly sessions = new Set<SocketSession>();
  private timers: NodeJS.Timeout[] = [];
  private rechecking = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    private readonly db: Database,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PLATFORM_LOG) private readonly log: pino.Logger,
  ) {}

  onApplicationBootstrap(): void {
    const http = this.adapterHost.httpAdapter?.getHttpServer() as import('node:http').Server | undefined;
    if (!http) return;
    const settings = settingsOf(this.config, REALTIME_SETTINGS);
    const registry = this.moduleRef.get<Registry>(DATA_API_REGISTRY, { strict: false });
    const reader = new RowReader(this.db, registry, this.config.DATA_API_MAX_RESPONSE_BYTES);
    const hub = new RealtimeHub(reader, { maxSocketsPerOrganization: settings.REALTIME_MAX_SOCKETS_PER_ORGANIZATION }, this.log);
    const authorizer = new JoinAuthorizer(this.moduleRef.get(Authenticator, { strict: false }), this.moduleRef.get(TokenService, { strict: false }));
    const listener = new ChangeListener(
      this.db,
      (notice) => hub.onChange(notice),
      (error) => this.log.warn({ err: error }, 'realtime: change listener lost; reopening (changes meanwhile are not replayed)'),
    );
    this.listener = listener;
    const watched = new WatchedOrganizations(this.db);
    const deps = {
      hub,
      authorizer,
      reader,
      listening: async (organizationId: string) => {
        await Promise.all([listener.ensure(), watched.watch([organizationId])]);
      },
      limits: { maxChannelsPerSocket: settings.REALTIME_MAX_CHANNELS_PER_SOCKET, sendBufferBytes: settings.REALTIME_SEND_BUFFER_BYTES },
      log: this.log,
    };
    const server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
    this.server = server;
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      // A client gone mid-handshake must not become an unhandled 'error'.
      socket.on('error', () => socket.destroy());
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname !== REALTIME_PATH && url.pathname !== `${REALTIME_PATH}/`) return refuseUpgrade(socket, 404, 'Not Found');
      const vsn = url.searchParams.get('vsn') ?? '1.0.0';
      if (!(VSNS as readonly string[]).includes(vsn)) return refuseUpgrade(socket, 400, `unsupported vsn ${vsn.slice(0, 20)} (1.0.0 or 2.0.0)`);
      const apikey = url.searchParams.get('apikey') ?? undefined;
      server.handleUpgrade(request, socket, head, (ws) => this.accept(ws, vsn as Vsn, apikey, deps));
    });
    // The marks of the organizations subscribed here stay ahead of their expiry; old ones are removed.
    const renew = () =>
      void watched
        .watch(hub.organizations())
        .then(() => watched.forgetExpired())
        .catch((error: unknown) => this.log.warn({ err: error }, 'realtime: could not renew the watched organizations'));
    this.timers = [
      setInterval(() => this.closeIdle(), IDLE_MS / 4),
      setInterval(() => void this.recheck(authorizer), RECHECK_MS),
      setInterval(renew, RENEW_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  private accept(ws: WebSocket, vsn: Vsn, apikey: string | undefined, deps: ConstructorParameters<typeof SocketSession>[3]): void {
    const session = new SocketSession(ws, vsn, apikey, deps);
    this.sessions.add(session);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return session.close(CLOSE.malformed, 'binary frames (broadcast) are not supported');
      session.receive(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    });
    ws.on('close', () => {
      session.dispose();
      this.sessions.delete(session);
    });
    // A protocol error (an oversized or invalid frame): ws closes the socket itself.
    ws.on('error', (error) => this.log.debug({ err: error, socket: session.id }, 'realtime: websocket error'));
  }

  private closeIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const session of this.sessions) if (session.lastSeen < before) session.close(CLOSE.normal, 'heartbeat timeout');
  }

  private async recheck(authorizer: JoinAuthorizer): Promise<void> {
    // A pass slower than the interval is not overlapped by the next one.
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      await this.recheckAll(authorizer);
    } finally {
      this.rechecking = false;
    }
  }

  private async recheckAll(authorizer: JoinAuthorizer): Promise<void> {
    const checks = new Map<string, Promise<Grant>>();
    const authorize = (credential: string) => {
      let check = checks.get(credential);
      if (!check) checks.set(credential, (check = authorizer.authorize(credential, 'realtime-recheck')));
      return check;
    };
    for (const session of this.sessions) {
      for (const topic of session.topics()) await session.recheck(topic, authorize);
    }
  }

  async onModuleDestroy(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const session of this.sessions) session.close(1001, 'server shutting down');
    this.sessions.clear();
    this.server?.close();
    await this.listener?.close();
  }
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
}
