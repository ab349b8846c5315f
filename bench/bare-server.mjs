// The baseline: a bare Fastify + pg server running the same SQL as the routes we measure.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: Number(process.env.BENCH_POOL_SIZE ?? 10) });
const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

// Same SQL as our /readyz: one round trip to the database.
app.get('/readyz', async () => {
  await pool.query('SELECT 1');
  return { status: 'ready', checks: { database: 'ok', migrations: 'ok' } };
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
