// The bare Fastify + pg routes the messaging scenarios compare ours with (bench/bare-server.mjs
// registers them): the same SQL as ours, read from the build, without the framework.
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BENCH_META_SECRET } from './messaging-scenarios.mjs';

// Route of bench/bare-server.mjs doing the send's work with our SQL (from the build): JWT, session
// check, the provider key read, one tenant transaction storing the message PENDING (contact by
// phone, channel account, conversation upsert), the provider call, a second transaction marking it
// SENT with its outbox event. It skips what a bare handler would not have: validation DTOs, the
// key's decryption and the contact-creation path (every recipient exists).
export function registerMessagingBareRoutes(app, { pool, key, root, sessionCheck, jwtVerify, notifyUrl }) {
  const require = createRequire(import.meta.url);
  const sql = require(join(root, 'dist/out/libs/messaging/src/infrastructure/messaging.sql.js'));
  const contactSql = require(join(root, 'dist/out/libs/crm/src/infrastructure/contact.sql.js'));
  const { insertOutboxEvents } = require(join(root, 'dist/out/libs/platform/src/events/outbox.sql.js'));
  const tenant =
    "SELECT set_config('role', 'app_tenant', true), set_config('app.org_id', $1, true), set_config('app.user_id', $2, true), " +
    "set_config('app.role', $3, true), set_config('app.request_id', $4, true)";

  async function inTenant(client, payload, role, requestId, work) {
    await client.query('BEGIN');
    try {
      await client.query(tenant, [payload.organization_id, payload.sub, role, requestId]);
      const result = await work();
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }

  // Same work as POST /functions/v1/chat-lite-webhook/<channel>: the token's SHA-256, the one
  // statement that checks the channel and stores the event (one per request: no grouping), the id.
  // The payload is stored in the shape the worker reads, with none of our field checks.
  const inboundSql = require(join(root, 'dist/out/libs/messaging/src/inbound/inbound.sql.js'));
  const storedShape = ({ id, from, text }) => ({ type: 'message', id, from, name: null, text, media: [], reply_to: null, timestamp: null });
  app.post('/messaging/inbound/:channelId', async (request, reply) => {
    const token = request.headers['x-channel-token'];
    if (typeof token !== 'string') return reply.status(401).send({});
    const tokenHash = createHash('sha256').update(token).digest();
    const {
      rows: [row],
    } = await pool.query({
      name: 'inbound',
      text: inboundSql.SYSTEM_AUTH_AND_STORE_INBOUND,
      values: [request.params.channelId, tokenHash, JSON.stringify(storedShape(request.body))],
    });
    if (!row || row.id === null) return reply.status(401).send({});
    return { received: true, id: String(row.id) };
  });

  // Same work as POST /functions/v1/meta-webhook: the signature over the raw bytes (constant time),
  // the body read by our parser, its events routed and stored by our statement (one per request: no
  // grouping).
  const { parseMetaWebhook } = require(join(root, 'dist/out/libs/messaging/src/channels/meta/meta-webhook.js'));
  app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/messaging/meta', async (request, reply) => {
      const given = Buffer.from(String(request.headers['x-hub-signature-256'] ?? ''));
      const expected = Buffer.from(`sha256=${createHmac('sha256', BENCH_META_SECRET).update(request.body).digest('hex')}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.status(401).send({});
      const events = parseMetaWebhook(JSON.parse(request.body.toString('utf8')));
      const { rows } = await pool.query({
        name: 'meta',
        text: inboundSql.SYSTEM_STORE_META_EVENTS,
        values: [events.map((e) => e.kind), events.map((e) => e.accountId), events.map((e) => JSON.stringify(e.payload))],
      });
      return { received: true, stored: rows.filter((row) => row.stored).length };
    });
  });

  app.post('/messaging/send', async (request, reply) => {
    const token = String(request.headers.authorization ?? '').slice(7);
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'engage' });
    const {
      rows: [check],
    } = await pool.query(sessionCheck, [payload.sub, payload.organization_id, payload.session_id]);
    if (!check || check.status !== 'active' || !check.alive) return reply.status(401).send({});
    const { to, message, organizationId } = request.body;
    if (organizationId !== payload.organization_id) return reply.status(403).send({});
    const digits = String(to).replace(/\D/g, '');
    const {
      rows: [org],
    } = await pool.query(`SELECT settings->'appgain_api_key' AS sealed FROM organizations WHERE id = $1`, [organizationId]);
    if (!org?.sealed) return reply.status(404).send({});
    const body = { UOWCHAT: { random_string: 0, receivers: [{ mobileNum: digits }], message, imageUrl: '', videoUrl: '', documentUrl: '' } };
    const client = await pool.connect();
    let stored;
    try {
      stored = await inTenant(client, payload, check.role, request.id, async () => {
        await client.query(contactSql.ORGANIZATION_COUNTRY);
        const {
          rows: [contact],
        } = await client.query(contactSql.CONTACT_BY_PHONE, [`+${digits}`]);
        if (!contact) throw new Error(`bench recipient +${digits} is not seeded`);
        const {
          rows: [channel],
        } = await client.query(sql.FIRST_ACTIVE_CHANNEL);
        const {
          rows: [conversation],
        } = await client.query(sql.UPSERT_CONVERSATION, [contact.id, channel.id, 0, false]);
        const {
          rows: [row],
        } = await client.query(sql.INSERT_MESSAGE, [
          conversation.id,
          contact.id,
          channel.id,
          'OUTBOUND',
          'PENDING',
          message,
          '[]',
          null,
          JSON.stringify({ random_string: 0 }),
          null,
          'api',
          null,
        ]);
        return { contact, conversation, row };
      });
    } finally {
      client.release();
    }
    // Outside any transaction, as ours: no connection is held while the provider works.
    const response = await fetch(`${notifyUrl}/${organizationId}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', appapikey: 'bench-provider-key' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const result = await response.json();
    const again = await pool.connect();
    try {
      await inTenant(again, payload, check.role, request.id, async () => {
        const {
          rows: [sent],
        } = await again.query(sql.FINISH_SEND, [
          stored.row.id,
          'SENT',
          null,
          result.external_id ?? null,
          JSON.stringify({ provider_response: { status: result.status, message: result.message } }),
        ]);
        await insertOutboxEvents(again, [
          {
            id: randomUUID(),
            organizationId,
            source: 'messaging',
            type: 'message.sent',
            aggregateId: sent.id,
            payload: { message: sent, actor_id: payload.sub },
            schemaVersion: 1,
            occurredAt: new Date().toISOString(),
          },
        ]);
      });
    } finally {
      again.release();
    }
    return {
      success: true,
      result,
      conversationId: stored.conversation.id,
      contactId: stored.contact.id,
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    };
  });
}
