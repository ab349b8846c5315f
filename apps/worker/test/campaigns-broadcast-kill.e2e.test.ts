import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { TestTenant } from '@engage/identity/testing';
import { type CampaignsApp, startCampaignsApp } from '@engage/campaigns/testing';
import { PendingSendSweeper } from '@engage/messaging';
import { exited, root, startWorker, until } from './worker-processes';

// A broadcast sent by worker processes killed (SIGKILL) twice mid-way, each time while one of its
// provider calls is on the wire, then a worker started again: every reachable recipient got
// exactly one provider call, the ones in flight at a kill end failed outcome_unknown (never
// resent), the rest sent, and the broadcast completes.
const RECIPIENTS = 40;

describe('a broadcast survives killed worker processes', () => {
  jest.setTimeout(180_000);
  let c: CampaignsApp;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    // Role api: the worker processes relay, consume and run the jobs.
    c = await startCampaignsApp({ role: 'api' });
  });
  afterAll(() => c.close());

  const http = (t: TestTenant, method: 'GET' | 'POST', url: string, payload?: object) =>
    c.app.inject({ method, url, headers: t.session, ...(payload ? { payload } : {}) });

  it('should send every reachable recipient exactly once across two SIGKILLs and a restart', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const phones: string[] = [];
    const contacts: string[] = [];
    for (let i = 0; i < RECIPIENTS; i++) {
      const phone = c.newPhone();
      phones.push(phone);
      contacts.push((await c.contact(t, { first_name: `Reem${i}`, phones: [phone], opt_in_status: true })).id);
    }
    // Personalised: one provider call per recipient.
    const created = await http(t, 'POST', '/functions/v1/campaigns/broadcasts', {
      name: 'Spring sale',
      channel_account_id: account,
      audience: { contact_ids: contacts },
      content: { text: 'Hi {{contact.first_name}}, the spring sale starts today' },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect((await http(t, 'POST', `/functions/v1/campaigns/broadcasts/${id}/start`)).json()).toMatchObject({
      status: 'sending',
      counts: { queued: RECIPIENTS },
    });

    // Each provider call takes 150 ms, so a kill lands during one.
    c.provider.script = () => ({ status: 200, body: { status: true, message: 'Message sent', external_id: `ext-${randomUUID()}` }, delayMs: 150 });
    const env = {
      DATABASE_URL: c.runtime.config.DATABASE_URL,
      DATA_DIR: c.runtime.config.DATA_DIR,
      NOTIFY_URL: c.provider.url,
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: '',
      JOBS_POLL_MS: '50',
      OUTBOX_POLL_MS: '100',
    };
    // The broadcast's messages in messaging, by status.
    const messages = async () => {
      const rows = await c.runtime.db.systemQuery<{ status: string }>(`SELECT status FROM messages WHERE origin = 'broadcast' AND origin_id = $1`, [id]);
      const count = (status: string) => rows.filter((r) => r.status === status).length;
      return { sent: count('SENT'), pending: count('PENDING'), calls: c.provider.calls.length };
    };
    const sweeper = new PendingSendSweeper(c.runtime.db, { staleAfterMs: 0 });

    let unanswered = 0;
    for (const after of [8, 20]) {
      const worker = await startWorker(env);
      await until(messages, (s) => s.sent >= after && s.pending === 1 && s.calls === s.sent + unanswered + 1);
      worker.kill('SIGKILL');
      expect(await exited(worker)).toBe('SIGKILL');
      unanswered += 1;
      // Its leases (the account's queue, the broadcast's hand-out) lapse, and the sweeper's minute passes.
      await c.runtime.db.systemQuery('UPDATE channel_accounts SET queue_lease_until = NULL WHERE id = $1', [account]);
      await c.runtime.db.systemQuery('UPDATE broadcasts SET lease_until = NULL WHERE id = $1', [id]);
      expect(await sweeper.sweep()).toBe(1);
    }
    const last = await startWorker(env);
    try {
      const done = await until(
        async () => (await http(t, 'GET', `/functions/v1/campaigns/broadcasts/${id}`)).json(),
        (b) => b.status === 'completed',
      );
      expect(done.counts).toMatchObject({ sent: RECIPIENTS - 2, failed: 2, queued: 0, total: RECIPIENTS });
      const recipients = (await http(t, 'GET', `/rest/v1/broadcast_recipients?broadcast_id=eq.${id}`)).json() as { status: string; error: string | null }[];
      expect(recipients.filter((r) => r.status === 'failed').map((r) => r.error)).toEqual(['outcome_unknown', 'outcome_unknown']);
      // Every recipient's number got exactly one call: the two in flight reached the provider once and were not resent.
      const calls = phones.map((phone) => c.provider.callsTo(phone.replace(/^\+/, '')).length);
      expect(calls.filter((n) => n !== 1)).toEqual([]);
      await new Promise((r) => setTimeout(r, 500));
      expect(c.provider.calls.length).toBe(RECIPIENTS);
    } finally {
      c.provider.script = () => undefined;
      last.kill('SIGTERM');
      await exited(last);
    }
  });
});
