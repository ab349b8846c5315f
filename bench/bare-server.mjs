// The baseline: a bare Fastify + pg server running the same SQL as the routes we measure (the SQL
// strings are imported from our build, so they cannot drift), with the same argon2id and JWT work.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { registerCrmBareRoutes } from './crm-scenarios.mjs';
import { registerMessagingBareRoutes } from './messaging-bare.mjs';
import { registerDataApiBareRoutes } from './data-api-scenarios.mjs';
import { registerBillingBareRoutes } from './billing-scenarios.mjs';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const sql = require(join(root, 'dist/out/libs/identity/src/infrastructure/identity.sql.js'));
const contactSql = require(join(root, 'dist/out/libs/crm/src/infrastructure/contact.sql.js'));
const { verify } = require('@node-rs/argon2');
const { SignJWT, jwtVerify } = require('jose');

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: Number(process.env.BENCH_POOL_SIZE ?? 10) });
const key = new TextEncoder().encode(process.env.BENCH_JWT_SECRET);
const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

// Same SQL as our /readyz: one round trip to the database.
app.get('/readyz', async () => {
  await pool.query('SELECT 1');
  return { status: 'ready', checks: { database: 'ok', migrations: 'ok' } };
});

// Same work as POST /functions/v1/mobile-api/login: two rate-limit counters, the user, argon2id,
// the sign-in mark and a refresh token in one transaction, a signed JWT.
app.post('/login', async (request, reply) => {
  const { email, password } = request.body;
  await pool.query(sql.HIT_RATE_LIMIT, [`login:email:${email}`, 300]);
  await pool.query(sql.HIT_RATE_LIMIT, [`login:ip:${request.ip}`, 300]);
  const {
    rows: [user],
  } = await pool.query(sql.USER_BY_EMAIL, [email]);
  if (!user || !(await verify(user.password_hash, password))) return reply.status(401).send({ error: 'Invalid login credentials' });
  const client = await pool.connect();
  const refreshToken = randomBytes(32).toString('base64url');
  const family = randomUUID();
  try {
    await client.query('BEGIN');
    await client.query(sql.MARK_SIGNED_IN, [user.id]);
    await client.query(sql.INSERT_REFRESH_TOKEN, [family, user.id, user.organization_id, createHash('sha256').update(refreshToken).digest(), 30]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({
    sub: user.id,
    organization_id: user.organization_id,
    role: user.role,
    session_id: family,
    email: user.email,
    aud: 'authenticated',
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setIssuer('engage')
    .sign(key);
  return {
    access_token: accessToken,
    refresh_token: refreshToken,
    expires_in: 3600,
    user: {
      id: user.id,
      first_name: user.first_name,
      last_name: user.last_name,
      email: user.email,
      organization_id: user.organization_id,
      avatar_url: user.avatar_url,
    },
  };
});

// Same work as GET /auth/v1/user: verify the JWT, the per-request session check, the user.
app.get('/user', async (request, reply) => {
  const token = String(request.headers.authorization ?? '').slice(7);
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'engage' });
  const {
    rows: [check],
  } = await pool.query(sql.SESSION_CHECK, [payload.sub, payload.organization_id, payload.session_id]);
  if (!check || check.status !== 'active' || !check.alive) return reply.status(401).send({});
  const {
    rows: [user],
  } = await pool.query(sql.USER_IN_ORGANIZATION, [payload.sub, payload.organization_id]);
  return { id: user.id, email: user.email, app_metadata: { organization_id: user.organization_id, role: user.role } };
});

// Same work as GET /functions/v1/mobile-api/contacts: JWT, session check, then the page query in a
// tenant transaction (role and organization set locally, as Database.inTenant does).
app.get('/contacts', async (request, reply) => {
  const token = String(request.headers.authorization ?? '').slice(7);
  const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'engage' });
  const {
    rows: [check],
  } = await pool.query(sql.SESSION_CHECK, [payload.sub, payload.organization_id, payload.session_id]);
  if (!check || check.status !== 'active' || !check.alive) return reply.status(401).send({});
  const limit = Number(request.query.limit ?? 50);
  const page = Number(request.query.page ?? 1);
  const search = request.query.search ? `%${request.query.search}%` : null;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      "SELECT set_config('role', 'app_tenant', true), set_config('app.org_id', $1, true), set_config('app.user_id', $2, true), set_config('app.role', $3, true), set_config('app.request_id', $4, true)",
      [payload.organization_id, payload.sub, check.role, request.id],
    );
    const {
      rows: [result],
    } = await client.query(contactSql.LIST_CONTACTS, [limit, (page - 1) * limit, search, null, null]);
    await client.query('COMMIT');
    return { contacts: result.contacts, total: result.total, page, limit, total_pages: Math.ceil(result.total / limit) };
  } finally {
    client.release();
  }
});

registerCrmBareRoutes(app, { pool, key, root, sessionCheck: sql.SESSION_CHECK, jwtVerify });
registerDataApiBareRoutes(app, { pool, key, sessionCheck: sql.SESSION_CHECK, jwtVerify });
registerBillingBareRoutes(app, { pool, root, secret: process.env.BENCH_BILLING_SECRET });
registerMessagingBareRoutes(app, { pool, key, root, sessionCheck: sql.SESSION_CHECK, jwtVerify, notifyUrl: process.env.BENCH_NOTIFY_URL });

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
