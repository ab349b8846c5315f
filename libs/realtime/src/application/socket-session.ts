import type pino from 'pino';
import { InvalidBinding, parseBindings } from '../domain/binding';
import { decodeFrame, encodeFrame, MalformedFrame, type PhoenixMessage, reply, type Vsn } from '../domain/phoenix-frame';
import type { RowReader } from '../infrastructure/row-reader';
import { REALTIME_TABLES } from '../infrastructure/realtime-tables';
import { type Grant, type JoinAuthorizer, Refused } from './join-authorizer';
import type { RealtimeHub, SubscriberSocket, Subscription } from './realtime-hub';

// What the session needs of its websocket (ws's WebSocket has these).
export interface SocketTransport {
  send(text: string): void;
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
}

export interface SessionLimits {
  maxChannelsPerSocket: number;
  sendBufferBytes: number;
}

export interface SessionDependencies {
  hub: RealtimeHub;
  authorizer: JoinAuthorizer;
  reader: RowReader;
  // Resolves once the process listens for changes (the first join opens the LISTEN).
  // Resolves once this organization's changes are listened for (LISTEN in place, the organization watched).
  listening: (organizationId: string) => Promise<void>;
  limits: SessionLimits;
  log: pino.Logger;
}

// Close codes: 1007 a frame that is not the protocol, 1008 a client that floods, 1013 a client too
// slow to read what it is sent. The client reconnects and joins again after any of them.
export const CLOSE = { normal: 1000, malformed: 1007, policy: 1008, overloaded: 1013 } as const;

// Frames waiting behind a join's authentication; a client sending faster than that is flooding.
const MAX_FRAMES_IN_FLIGHT = 100;
// Longest a token expiry timer can be set for (setTimeout's limit); a later expiry is re-armed.
const MAX_TIMER_MS = 2 ** 31 - 1;

interface JoinedChannel extends Subscription {
  joinRef: string | null;
  expiryTimer?: NodeJS.Timeout;
}

let sessionCounter = 0;

// One websocket speaking Supabase Realtime's protocol: heartbeat, phx_join with postgres_changes
// bindings, access_token, phx_leave. Frames are handled one after another, in order.
export class SocketSession implements SubscriberSocket {
  readonly id = `rt${++sessionCounter}`;
  lastSeen = Date.now();
  private readonly channels = new Map<string, JoinedChannel>();
  private inbox: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private bindingCounter = 0;
  private closed = false;

  constructor(
    private readonly transport: SocketTransport,
    private readonly vsn: Vsn,
    private readonly apikey: string | undefined,
    private readonly deps: SessionDependencies,
  ) {}

  get channelCount(): number {
    return this.channels.size;
  }

  receive(text: string): void {
    if (this.closed) return;
    this.lastSeen = Date.now();
    if (++this.inFlight > MAX_FRAMES_IN_FLIGHT) return this.close(CLOSE.policy, 'too many frames waiting');
    this.inbox = this.inbox
      .then(() => this.handle(text))
      .catch((error: unknown) => {
        this.deps.log.error({ err: error, socket: this.id }, 'realtime: frame handling failed');
        this.close(CLOSE.overloaded, 'internal error');
      })
      .finally(() => this.inFlight--);
  }

  private async handle(text: string): Promise<void> {
    if (this.closed) return;
    let message: PhoenixMessage;
    try {
      message = decodeFrame(this.vsn, text);
    } catch (error) {
      if (error instanceof MalformedFrame) return this.close(CLOSE.malformed, error.message);
      throw error;
    }
    if (message.topic === 'phoenix') {
      if (message.event === 'heartbeat') this.send(reply(message, 'ok'));
      else this.send(reply(message, 'error', { reason: `unknown event "${message.event}" on topic phoenix` }));
      return;
    }
    switch (message.event) {
      case 'phx_join':
        return this.join(message);
      case 'phx_leave':
        return this.leave(message);
      case 'access_token':
        return this.updateToken(message);
      default: {
        const joined = this.channels.has(message.topic);
        const reason = joined ? `"${message.event}" is not supported: this server offers postgres_changes only (docs/realtime.md)` : 'unmatched topic';
        this.send(reply(message, 'error', { reason }));
      }
    }
  }

  private async join(message: PhoenixMessage): Promise<void> {
    const refuse = (reason: string): void => void this.send(reply(message, 'error', { reason }));
    if (!message.topic.startsWith('realtime:')) return refuse('a topic starts with "realtime:"');
    const previous = this.channels.get(message.topic);
    if (!previous && this.channels.size >= this.deps.limits.maxChannelsPerSocket) {
      return refuse(`a connection joins at most ${this.deps.limits.maxChannelsPerSocket} channels (REALTIME_MAX_CHANNELS_PER_SOCKET)`);
    }
    const config = (message.payload.config ?? {}) as Record<string, unknown>;
    if (typeof config !== 'object' || config === null) return refuse('config must be an object');
    if ((config.presence as { enabled?: unknown } | undefined)?.enabled === true)
      return refuse('presence is not supported: this server offers postgres_changes only');
    if (config.private === true) return refuse('private channels are not supported: this server offers postgres_changes only');
    const token = typeof message.payload.access_token === 'string' ? message.payload.access_token : this.apikey;
    let grant: Grant;
    let channel: JoinedChannel;
    try {
      grant = await this.deps.authorizer.authorize(token, `${this.id}-join`);
      const role = grant.ctx.role;
      const bindings = parseBindings(
        config.postgres_changes,
        REALTIME_TABLES,
        (table) => this.deps.reader.readableColumns(table, role),
        () => ++this.bindingCounter,
      );
      if (previous) this.drop(previous);
      channel = { socket: this, topic: message.topic, joinRef: message.joinRef ?? message.ref, grant, bindings };
      this.deps.hub.attach(channel);
    } catch (error) {
      if (error instanceof Refused || error instanceof InvalidBinding) return refuse(error.message);
      throw error;
    }
    if (this.closed) return this.deps.hub.detach(channel);
    try {
      await this.deps.listening(grant.ctx.organizationId);
    } catch (error) {
      this.deps.hub.detach(channel);
      this.deps.log.error({ err: error }, 'realtime: could not listen for changes');
      return refuse('the change feed is unavailable; try again');
    }
    this.channels.set(channel.topic, channel);
    this.armExpiry(channel);
    this.send(reply(message, 'ok', { postgres_changes: channel.bindings.map((binding) => binding.echo) }));
    if (channel.bindings.length > 0) {
      this.send({
        topic: channel.topic,
        event: 'system',
        payload: { extension: 'postgres_changes', status: 'ok', message: 'Subscribed to PostgreSQL', channel: channel.topic.slice('realtime:'.length) },
        ref: null,
        joinRef: channel.joinRef,
      });
    }
  }

  private leave(message: PhoenixMessage): void {
    const channel = this.channels.get(message.topic);
    if (channel) this.drop(channel);
    this.send(reply(message, 'ok'));
  }

  // A fresh token for a joined channel: checked as at join; a refused one closes the channel.
  private async updateToken(message: PhoenixMessage): Promise<void> {
    const channel = this.channels.get(message.topic);
    if (!channel) return void this.send(reply(message, 'error', { reason: 'unmatched topic' }));
    const token = message.payload.access_token;
    if (typeof token !== 'string') return void this.send(reply(message, 'error', { reason: 'access_token must be a string' }));
    let grant: Grant;
    try {
      grant = await this.deps.authorizer.authorize(token, `${this.id}-token`);
    } catch (error) {
      if (error instanceof Refused) return this.closeChannel(channel, error.message);
      throw error;
    }
    if (this.channels.get(message.topic) !== channel) return;
    if (grant.ctx.organizationId !== channel.grant.ctx.organizationId) return this.closeChannel(channel, 'the access token is for another organization');
    channel.grant = grant;
    this.armExpiry(channel);
    this.send(reply(message, 'ok'));
  }

  // Checks a channel's credential again (a signed-out session, a removed member, a revoked key).
  // `authorize` lets the caller share one check among the channels holding the same credential.
  async recheck(topic: string, authorize = (credential: string) => this.deps.authorizer.authorize(credential, `${this.id}-recheck`)): Promise<void> {
    const channel = this.channels.get(topic);
    if (!channel) return;
    try {
      const grant = await authorize(channel.grant.credential);
      if (this.channels.get(topic) === channel && grant.ctx.organizationId === channel.grant.ctx.organizationId)
        channel.grant = { ...grant, expiresAt: channel.grant.expiresAt };
    } catch (error) {
      if (error instanceof Refused && this.channels.get(topic) === channel) this.closeChannel(channel, error.message);
      else if (!(error instanceof Refused)) this.deps.log.warn({ err: error }, 'realtime: credentials not re-checked');
    }
  }

  private armExpiry(channel: JoinedChannel): void {
    clearTimeout(channel.expiryTimer);
    channel.expiryTimer = undefined;
    const expiresAt = channel.grant.expiresAt;
    if (expiresAt === undefined) return;
    const delay = Math.max(0, expiresAt - Date.now());
    channel.expiryTimer = setTimeout(
      () => (Date.now() >= expiresAt ? this.closeChannel(channel, 'Token has expired') : this.armExpiry(channel)),
      Math.min(delay, MAX_TIMER_MS),
    );
    channel.expiryTimer.unref();
  }

  // Supabase's way of ending a channel from the server: a system error, then phx_close.
  private closeChannel(channel: JoinedChannel, reason: string): void {
    if (this.channels.get(channel.topic) !== channel) return;
    this.drop(channel);
    const subTopic = channel.topic.slice('realtime:'.length);
    this.send({
      topic: channel.topic,
      event: 'system',
      payload: { extension: 'system', status: 'error', message: reason, channel: subTopic },
      ref: null,
      joinRef: channel.joinRef,
    });
    this.send({ topic: channel.topic, event: 'phx_close', payload: {}, ref: channel.joinRef, joinRef: channel.joinRef });
  }

  private drop(channel: JoinedChannel): void {
    clearTimeout(channel.expiryTimer);
    if (this.channels.get(channel.topic) === channel) this.channels.delete(channel.topic);
    this.deps.hub.detach(channel);
  }

  topics(): string[] {
    return [...this.channels.keys()];
  }

  deliver(topic: string, payload: Record<string, unknown>): boolean {
    return this.send({ topic, event: 'postgres_changes', payload, ref: null, joinRef: null });
  }

  // false once closed, or when the frame would pass the send buffer's limit (the socket is then closed).
  private send(message: PhoenixMessage): boolean {
    if (this.closed) return false;
    const text = encodeFrame(this.vsn, message);
    if (this.transport.bufferedAmount + Buffer.byteLength(text) > this.deps.limits.sendBufferBytes) {
      this.close(CLOSE.overloaded, 'send buffer full: the client reads too slowly');
      return false;
    }
    this.transport.send(text);
    return true;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.dispose();
    this.transport.close(code, reason);
  }

  // The socket is gone (closed by either side): its channels leave the hub.
  dispose(): void {
    this.closed = true;
    for (const channel of [...this.channels.values()]) this.drop(channel);
  }
}
