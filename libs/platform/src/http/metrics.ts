import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../database/database';
import { OUTBOX_LAG } from '../events/outbox.sql';
import type { OrgGate } from './org-gate';

const JOB_STATES = ['queued', 'running', 'dead'];
const JOBS_BY_STATE = `SELECT state, count(*)::int AS n FROM jobs GROUP BY state`;

// Prometheus metrics: request counts and latency per route template, outbox lag, jobs by state.
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests',
    labelNames: ['method', 'route', 'status_code'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(db: Database) {
    collectDefaultMetrics({ register: this.registry });
    let lag: Promise<{ pending: number; oldest_seconds: number }> | undefined;
    // One query per scrape feeds both gauges.
    const readLag = () =>
      (lag ??= db
        .asSystem(async (tx) => (await tx.query<{ pending: number; oldest_seconds: number }>(OUTBOX_LAG))[0])
        .finally(() => setTimeout(() => (lag = undefined), 0)));
    new Gauge({
      name: 'outbox_pending_events',
      help: 'Events committed but not yet published to the bus',
      registers: [this.registry],
      async collect() {
        this.set((await readLag()).pending);
      },
    });
    new Gauge({
      name: 'outbox_oldest_pending_seconds',
      help: 'Age of the oldest unpublished event',
      registers: [this.registry],
      async collect() {
        this.set((await readLag()).oldest_seconds);
      },
    });
    // Dead jobs above zero want an operator (npm run admin -- jobs --failed).
    new Gauge({
      name: 'jobs',
      help: 'Background jobs of the job runner by state (queued, running, dead)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = new Map((await db.systemQuery<{ state: string; n: number }>(JOBS_BY_STATE)).map((row) => [row.state, row.n]));
        for (const state of JOB_STATES) this.set({ state }, counts.get(state) ?? 0);
      },
    });
  }

  // The organization gate's requests in flight and its refusals (429 too_many_concurrent_requests).
  watchGate(gate: OrgGate): void {
    new Gauge({
      name: 'org_gate_requests',
      help: 'Tenant-scoped requests holding an organization slot (running) or waiting for one',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const totals = gate.totals();
        this.set({ state: 'running' }, totals.running);
        this.set({ state: 'waiting' }, totals.waiting);
      },
    });
    new Gauge({
      name: 'org_gate_uploads',
      help: 'Uploads (bodies read as they arrive) holding a slot of the upload budget (running) or waiting for one',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const uploads = gate.uploads();
        this.set({ state: 'running' }, uploads.running);
        this.set({ state: 'waiting' }, uploads.waiting);
      },
    });
    new Counter({
      name: 'org_gate_refused_total',
      help: 'Tenant-scoped requests refused by the organization gate',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(gate.refused);
      },
    });
  }

  install(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      this.requests.inc(labels);
      this.latency.observe(labels, reply.elapsedTime / 1000);
      done();
    });
  }
}
