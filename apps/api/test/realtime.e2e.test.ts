import { createClient, type RealtimeChannel, type RealtimePostgresChangesPayload, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService, TokenService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { DedicatedSession, PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

type Row = Record<string, unknown>;
type Change = RealtimePostgresChangesPayload<Row> & { receivedAt: number };
type Binding = { event: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; table?: string; filter?: string };

// supabase-js's realtime client, unchanged, against /realtime/v1/websocket of the composed app on a
// real port and a real PostgreSQL: the changes of messages and conversations as each subscriber's
// row-level security lets it read them.
describe('realtime (/realtime/v1/websocket) through supabase-js', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;
  let baseUrl: string;
  let anonKey: string;
  const clients: SupabaseClient[] = [];

  beforeAll(async () => {
    // Small bounds, so the tests can reach them.
    ({ runtime, app, close } = await startComposedApp({
      env: { REALTIME_MAX_CHANNELS_PER_SOCKET: '2', REALTIME_MAX_SOCKETS_PER_ORGANIZATION: '2', REALTIME_SEND_BUFFER_BYTES: '16384' },
    }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
    anonKey = await app.get(TokenService).issueAnonKey();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.removeAllChannels()));
    await close();
  });

  const clientWith = (key: string) => {
    const client = createClient(baseUrl, key, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });
    clients.push(client);
    return client;
  };

  async function signedIn(tenant: TestTenant): Promise<SupabaseClient> {
    const client = clientWith(anonKey);
    const { error } = await client.auth.signInWithPassword({ email: tenant.email, password: tenant.password });
    expect(error).toBeNull();
    return client;
  }

  // A tenant with a chat-app conversation (made through chat-lite-send and the sandbox provider).
  async function tenantWithConversation(): Promise<TestTenant & { conversationId: string }> {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'k-123');
    const conversationId = await startConversation(tenant, '201001234567');
    return { ...tenant, conversationId };
  }

  async function startConversation(tenant: TestTenant, to: string): Promise<string> {
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: tenant.key,
      payload: { to, message: 'hello', organizationId: tenant.ctx.organizationId, contactName: 'Sara' },
    });
    expect(sent.statusCode).toBe(200);
    return sent.json().conversationId;
  }

  // An inbound message as the inbound path stores it, in the tenant's own transaction.
  async function insertMessage(tenant: TestTenant, conversationId: string, content: string): Promise<string> {
    const [row] = await runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.query<{ id: string }>(
        `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin)
         SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', $2, 'customer' FROM conversations WHERE id = $1
         RETURNING id`,
        [conversationId, content],
      ),
    );
    return row.id;
  }

  // Subscribes and collects what arrives; resolves once SUBSCRIBED, rejects with the server's reason.
  function subscribe(client: SupabaseClient, bindings: Binding[], name = `c-${Math.random()}`): Promise<{ channel: RealtimeChannel; changes: Change[] }> {
    const changes: Change[] = [];
    let channel = client.channel(name);
    for (const binding of bindings) {
      channel = channel.on('postgres_changes', { schema: 'public', table: 'messages', ...binding } as never, (payload: RealtimePostgresChangesPayload<Row>) =>
        changes.push({ ...payload, receivedAt: performance.now() }),
      );
    }
    return new Promise((resolve, reject) => {
      channel.subscribe((status, error) => {
        if (status === 'SUBSCRIBED') resolve({ channel, changes });
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
          void client.removeChannel(channel);
          reject(error ?? new Error(status));
        }
      });
    });
  }

  async function waitFor<T>(find: () => T | undefined, timeoutMs = 2000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (performance.now() > deadline) throw new Error(`nothing arrived within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  function rawSocket(query: string): Promise<{ ws: WebSocket; frames: unknown[]; closed: Promise<{ code: number; reason: string }> }> {
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    return new Promise((resolve, reject) => {
      ws.on('open', () => resolve({ ws, frames, closed }));
      ws.on('error', reject);
    });
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const withContent = (changes: Change[], content: string) => () => changes.find((change) => (change.new as Row).content === content);

  it("should deliver a new message of A to A's subscriber within 2 s and never to B's", async () => {
    const a = await tenantWithConversation();
    const b = await tenantWithConversation();
    const ofA = await subscribe(await signedIn(a), [{ event: 'INSERT' }]);
    const ofB = await subscribe(await signedIn(b), [{ event: 'INSERT' }]);
    const started = performance.now();
    const id = await insertMessage(a, a.conversationId, 'for A only');
    const change = await waitFor(withContent(ofA.changes, 'for A only'));
    expect(change.receivedAt - started).toBeLessThan(2000);
    expect(change).toMatchObject({ schema: 'public', table: 'messages', eventType: 'INSERT', errors: null, old: {} });
    expect(change.new).toMatchObject({
      id,
      organization_id: a.ctx.organizationId,
      conversation_id: a.conversationId,
      direction: 'INBOUND',
      media: [],
      metadata: {},
    });
    // The columns /rest/v1 serves, and only those.
    expect(change.new).not.toHaveProperty('first_reply_at');
    expect(change.new).not.toHaveProperty('dispatched_at');
    expect(Number.isNaN(Date.parse(change.commit_timestamp))).toBe(false);
    await insertMessage(b, b.conversationId, 'for B only');
    await waitFor(withContent(ofB.changes, 'for B only'));
    await sleep(300);
    expect(ofB.changes.filter((c) => (c.new as Row).content === 'for A only')).toEqual([]);
    expect(ofA.changes.filter((c) => (c.new as Row).content === 'for B only')).toEqual([]);
  });

  it("should deliver to an organization's API key, as the record proxy authenticates it", async () => {
    const a = await tenantWithConversation();
    const { changes } = await subscribe(clientWith(a.key['x-api-key']), [{ event: '*' }]);
    await insertMessage(a, a.conversationId, 'seen by the key');
    await waitFor(withContent(changes, 'seen by the key'));
  });

  it('should send only the rows a conversation_id filter matches', async () => {
    const a = await tenantWithConversation();
    const other = await startConversation(a, '201009999999');
    const { changes } = await subscribe(await signedIn(a), [{ event: 'INSERT', filter: `conversation_id=eq.${a.conversationId}` }]);
    await insertMessage(a, other, 'elsewhere');
    await insertMessage(a, a.conversationId, 'here');
    await waitFor(withContent(changes, 'here'));
    await sleep(200);
    expect(changes.map((change) => (change.new as Row).content)).toEqual(['here']);
  });

  it('should send a status change and an assignment of a conversation as UPDATE, and a message status as UPDATE', async () => {
    const a = await tenantWithConversation();
    const client = await signedIn(a);
    const conversations = await subscribe(client, [{ event: 'UPDATE', table: 'conversations', filter: `id=eq.${a.conversationId}` }]);
    const messages = await subscribe(client, [{ event: 'UPDATE', filter: `conversation_id=eq.${a.conversationId}` }]);
    const status = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/conversations/${a.conversationId}/status`,
      headers: a.session,
      payload: { status: 'PENDING' },
    });
    expect(status.statusCode).toBe(200);
    const pending = await waitFor(() => conversations.changes.find((change) => (change.new as Row).status === 'PENDING'));
    expect(pending).toMatchObject({ table: 'conversations', eventType: 'UPDATE', old: { id: a.conversationId } });
    const assigned = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/conversations/${a.conversationId}/assignee`,
      headers: a.session,
      payload: { assignee_id: a.ctx.userId },
    });
    expect(assigned.statusCode).toBe(200);
    await waitFor(() => conversations.changes.find((change) => (change.new as Row).assignee_id === a.ctx.userId));
    const id = await insertMessage(a, a.conversationId, 'to be read');
    await runtime.db.inTenant(a.ctx, (tx) => tx.execute(`UPDATE messages SET status = 'READ' WHERE id = $1`, [id]));
    const read = await waitFor(() => messages.changes.find((change) => (change.new as Row).id === id));
    expect(read).toMatchObject({ eventType: 'UPDATE', new: { status: 'READ' } });
    // UPDATE bindings only: the insert was not sent to them.
    expect(messages.changes.every((change) => change.eventType === 'UPDATE')).toBe(true);
  });

  it('should stop delivering to a channel once it is left', async () => {
    const a = await tenantWithConversation();
    const client = await signedIn(a);
    const leaving = await subscribe(client, [{ event: 'INSERT' }], 'leaving');
    const witness = await subscribe(client, [{ event: 'INSERT' }], 'witness');
    await insertMessage(a, a.conversationId, 'before leaving');
    await waitFor(withContent(leaving.changes, 'before leaving'));
    expect(await client.removeChannel(leaving.channel)).toBe('ok');
    await insertMessage(a, a.conversationId, 'after leaving');
    await waitFor(withContent(witness.changes, 'after leaving'));
    await sleep(200);
    expect(leaving.changes.map((change) => (change.new as Row).content)).toEqual(['before leaving']);
  });

  it('should refuse a join without a signed-in user, with a bad key, or with an expired token, giving the reason', async () => {
    const a = await tenantWithConversation();
    await expect(subscribe(clientWith(anonKey), [{ event: '*' }])).rejects.toThrow('The anon key does not identify a user; sign in first');
    await expect(subscribe(clientWith('not-a-key-of-ours'), [{ event: '*' }])).rejects.toThrow('Invalid API key');
    const expired = await reissued(a, -10);
    await expect(subscribe(clientWith(expired), [{ event: '*' }])).rejects.toThrow('Token has expired');
  });

  it('should close a channel with a system error when its token expires', async () => {
    const a = await tenantWithConversation();
    const client = clientWith(await reissued(a, 2));
    const system: Row[] = [];
    const closed = new Promise<void>((resolve, reject) => {
      client
        .channel('expiring')
        .on('postgres_changes', { event: '*', schema: 'public', table: 'messages' }, () => undefined)
        .on('system', {}, (payload: Row) => system.push(payload))
        .subscribe((status, error) => {
          if (status === 'CLOSED') resolve();
          if (status === 'CHANNEL_ERROR') reject(error);
        });
    });
    await closed;
    expect(system).toContainEqual(expect.objectContaining({ status: 'error', message: 'Token has expired' }));
  }, 15000);

  it('should close a channel whose session was signed out once its token is checked again, and send it nothing more', async () => {
    const a = await tenantWithConversation();
    const token = a.session.authorization.slice('Bearer '.length);
    const raw = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
    const join = { config: { postgres_changes: [{ event: '*', schema: 'public', table: 'messages' }] }, access_token: token };
    raw.ws.send(JSON.stringify(['1', '1', 'realtime:s', 'phx_join', join]));
    await waitFor(() => raw.frames.find((frame) => (frame as unknown[])[3] === 'phx_reply'));
    expect((await app.inject({ method: 'POST', url: '/auth/v1/logout', headers: a.session })).statusCode).toBe(204);
    // What supabase-js sends when it refreshes the token, and what the server's minute re-check does.
    raw.ws.send(JSON.stringify(['1', '2', 'realtime:s', 'access_token', { access_token: token }]));
    await waitFor(() => raw.frames.find((frame) => (frame as unknown[])[3] === 'phx_close'));
    expect(raw.frames).toContainEqual([
      '1',
      null,
      'realtime:s',
      'system',
      { extension: 'system', status: 'error', message: 'Session from session_id claim in JWT does not exist', channel: 's' },
    ]);
    await insertMessage(a, a.conversationId, 'after sign-out');
    await sleep(300);
    expect(raw.frames.filter((frame) => (frame as unknown[])[3] === 'postgres_changes')).toEqual([]);
    raw.ws.close();
  });

  it('should refuse an unknown table and a bad filter, naming them', async () => {
    const a = await tenantWithConversation();
    const client = await signedIn(a);
    await expect(subscribe(client, [{ event: '*', table: 'nope' }])).rejects.toThrow('table "nope" is not served by realtime');
    await expect(subscribe(client, [{ event: '*', filter: 'secret=eq.1' }])).rejects.toThrow('filter column "secret" does not exist or is not readable');
    await expect(subscribe(client, [{ event: '*', filter: 'first_reply_at=eq.2020-01-01' }])).rejects.toThrow('"first_reply_at"');
  });

  it('should refuse a channel or a connection beyond the limits, naming the setting', async () => {
    const a = await tenantWithConversation();
    const first = await signedIn(a);
    await subscribe(first, [{ event: 'INSERT' }]);
    await subscribe(first, [{ event: 'UPDATE' }]);
    await expect(subscribe(first, [{ event: 'DELETE' }])).rejects.toThrow('at most 2 channels (REALTIME_MAX_CHANNELS_PER_SOCKET)');
    await subscribe(await signedIn(a), [{ event: 'INSERT' }]);
    await expect(subscribe(await signedIn(a), [{ event: 'INSERT' }])).rejects.toThrow('already holds 2 realtime connections');
  });

  it('should close a socket whose send buffer would pass its limit (1013), and go on delivering to others', async () => {
    const a = await tenantWithConversation();
    const raw = await rawSocket(`apikey=${a.key['x-api-key']}&vsn=2.0.0`);
    raw.ws.send(
      JSON.stringify(['1', '1', 'realtime:big', 'phx_join', { config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'messages' }] } }]),
    );
    await waitFor(() => raw.frames.find((frame) => (frame as unknown[])[3] === 'phx_reply'));
    await insertMessage(a, a.conversationId, 'x'.repeat(20_000));
    expect(await raw.closed).toEqual({ code: 1013, reason: 'send buffer full: the client reads too slowly' });
    const { changes } = await subscribe(clientWith(a.key['x-api-key']), [{ event: 'INSERT' }]);
    await insertMessage(a, a.conversationId, 'small');
    await waitFor(withContent(changes, 'small'));
  });

  it('should notify ids and the organization only, 100 rows a notification, and send a DELETE with the old id', async () => {
    const a = await tenantWithConversation();
    const { changes } = await subscribe(await signedIn(a), [{ event: 'DELETE' }]);
    const session = (await runtime.db.openDedicatedSession()) as DedicatedSession & {
      on(event: 'notification', handler: (message: { payload?: string }) => void): unknown;
    };
    const notices: Row[] = [];
    session.on('notification', (message) => notices.push(JSON.parse(message.payload ?? '{}')));
    await session.query('LISTEN realtime_changes');
    try {
      await runtime.db.inTenant(a.ctx, (tx) =>
        tx.execute(
          `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin)
           SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', 'secret ' || n, 'customer' FROM conversations, generate_series(1, 150) AS n WHERE id = $1`,
          [a.conversationId],
        ),
      );
      const inserted = await waitFor(() => {
        const mine = notices.filter((notice) => notice.organization_id === a.ctx.organizationId && notice.type === 'INSERT');
        return mine.length === 2 ? mine : undefined;
      });
      expect(inserted.map((notice) => (notice.ids as string[]).length).sort()).toEqual([100, 50]);
      for (const notice of inserted) expect(Object.keys(notice).sort()).toEqual(['at', 'ids', 'organization_id', 'table', 'type']);
      expect(JSON.stringify(notices)).not.toContain('secret');
      const [removed] = await runtime.db.inTenant(a.ctx, (tx) =>
        tx.query<{ id: string }>(`DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE content = 'secret 7') RETURNING id`),
      );
      const deleted = await waitFor(() => changes.find((change) => change.eventType === 'DELETE'));
      expect(deleted).toMatchObject({ table: 'messages', old: { id: removed.id }, new: {} });
    } finally {
      await session.end();
    }
  });

  it('should announce no change of an organization nobody subscribes to, and announce it once a member joins', async () => {
    const quiet = await tenantWithConversation();
    const session = (await runtime.db.openDedicatedSession()) as DedicatedSession & {
      on(event: 'notification', handler: (message: { payload?: string }) => void): unknown;
    };
    const notices: Row[] = [];
    session.on('notification', (message) => notices.push(JSON.parse(message.payload ?? '{}')));
    await session.query('LISTEN realtime_changes');
    try {
      const mine = () => notices.filter((notice) => notice.organization_id === quiet.ctx.organizationId);
      await insertMessage(quiet, quiet.conversationId, 'unwatched');
      // A marker of a watched organization, committed after it: once it arrives, the first would have too.
      const watched = await tenantWithConversation();
      const { changes } = await subscribe(await signedIn(watched), [{ event: 'INSERT' }]);
      await insertMessage(watched, watched.conversationId, 'marker');
      await waitFor(withContent(changes, 'marker'));
      await waitFor(() => notices.find((notice) => notice.organization_id === watched.ctx.organizationId));
      expect(mine()).toEqual([]);
      const joined = await subscribe(await signedIn(quiet), [{ event: 'INSERT' }]);
      await insertMessage(quiet, quiet.conversationId, 'watched now');
      await waitFor(withContent(joined.changes, 'watched now'));
      expect(await waitFor(() => (mine().length > 0 ? mine() : undefined))).toEqual([expect.objectContaining({ table: 'messages', type: 'INSERT' })]);
    } finally {
      await session.end();
    }
  });

  // The session's own claims, re-signed to expire `seconds` from now.
  async function reissued(tenant: TestTenant, seconds: number): Promise<string> {
    const token = tenant.session.authorization.slice('Bearer '.length);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, string>;
    const issued = await app
      .get(TokenService)
      .issueAccessToken(
        { sub: claims.sub, organization_id: claims.organization_id, role: claims.role, session_id: claims.session_id, email: claims.email },
        new Date(Date.now() - 3600_000 + seconds * 1000),
      );
    return issued.token;
  }

  describe('the wire protocol', () => {
    it('should answer a heartbeat in both framings', async () => {
      const v2 = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
      v2.ws.send(JSON.stringify([null, '7', 'phoenix', 'heartbeat', {}]));
      expect(await waitFor(() => v2.frames[0])).toEqual([null, '7', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
      v2.ws.close();
      const v1 = await rawSocket(`apikey=${anonKey}&vsn=1.0.0`);
      v1.ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '8' }));
      expect(await waitFor(() => v1.frames[0])).toEqual({
        topic: 'phoenix',
        event: 'phx_reply',
        payload: { status: 'ok', response: {} },
        ref: '8',
        join_ref: null,
      });
      v1.ws.close();
    });

    it('should join and deliver with 1.0.0 framing', async () => {
      const a = await tenantWithConversation();
      const raw = await rawSocket(`apikey=${a.key['x-api-key']}&vsn=1.0.0`);
      raw.ws.send(
        JSON.stringify({
          topic: 'realtime:v1',
          event: 'phx_join',
          ref: '1',
          join_ref: '1',
          payload: { config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'messages' }] } },
        }),
      );
      const joined = (await waitFor(() => raw.frames.find((frame) => (frame as Row).event === 'phx_reply'))) as Row;
      expect(joined).toMatchObject({
        topic: 'realtime:v1',
        ref: '1',
        join_ref: '1',
        payload: { status: 'ok', response: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'messages' }] } },
      });
      const bindingId = ((joined.payload as Row).response as { postgres_changes: { id: number }[] }).postgres_changes[0].id;
      const id = await insertMessage(a, a.conversationId, 'raw');
      const change = (await waitFor(() => raw.frames.find((frame) => (frame as Row).event === 'postgres_changes'))) as Row;
      expect(change).toMatchObject({
        topic: 'realtime:v1',
        payload: { ids: [bindingId], data: { type: 'INSERT', table: 'messages', record: { id, content: 'raw' } } },
      });
      expect((change.payload as { data: { columns: { name: string; type: string }[] } }).data.columns).toContainEqual({ name: 'media', type: 'jsonb' });
      raw.ws.close();
    });

    it('should close a socket that sends malformed frames, and go on serving others', async () => {
      for (const bad of ['not json', '{"topic":"x"}', '[1,2,3]', JSON.stringify([null, '1', 'realtime:x', 'phx_join', 'payload'])]) {
        const raw = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
        raw.ws.send(bad);
        expect((await raw.closed).code).toBe(1007);
      }
      const binary = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
      binary.ws.send(Buffer.from([3, 0, 0]));
      expect((await binary.closed).code).toBe(1007);
      const huge = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
      huge.ws.send(JSON.stringify([null, '1', 'phoenix', 'heartbeat', { pad: 'x'.repeat(100_000) }]));
      expect((await huge.closed).code).toBe(1009);
      const unmatched = await rawSocket(`apikey=${anonKey}&vsn=2.0.0`);
      unmatched.ws.send(JSON.stringify([null, '2', 'realtime:nobody', 'broadcast', {}]));
      expect(await waitFor(() => unmatched.frames[0])).toEqual([
        null,
        '2',
        'realtime:nobody',
        'phx_reply',
        { status: 'error', response: { reason: 'unmatched topic' } },
      ]);
      unmatched.ws.close();
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    });

    it('should refuse an unknown protocol version and other paths at the upgrade', async () => {
      await expect(rawSocket(`apikey=${anonKey}&vsn=9.9.9`)).rejects.toThrow('400');
      const other = new WebSocket(`${baseUrl.replace('http', 'ws')}/realtime/v1/elsewhere`);
      await expect(new Promise((resolve, reject) => (other.on('open', resolve), other.on('error', reject)))).rejects.toThrow('404');
    });
  });

  it('should deliver 50 inserts, each within 2 s (p50 and p95 printed)', async () => {
    const a = await tenantWithConversation();
    const { changes } = await subscribe(await signedIn(a), [{ event: 'INSERT', filter: `conversation_id=eq.${a.conversationId}` }]);
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await insertMessage(a, a.conversationId, `latency ${i}`);
      const change = await waitFor(withContent(changes, `latency ${i}`));
      latencies.push(change.receivedAt - started);
    }
    latencies.sort((x, y) => x - y);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    process.stdout.write(
      `realtime insert-to-receipt over 50 inserts: p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${at(1).toFixed(1)} ms\n`,
    );
    expect(at(0.95)).toBeLessThan(2000);
  });
});
