import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestTenant } from '@engage/identity/testing';
import { type CampaignsApp, startCampaignsApp } from '@engage/campaigns/testing';
import { exited, root, startWorker, until } from './worker-processes';

// A broadcast started (and one scheduled) over HTTP on an api process, sent by a real worker
// process on the same database: its campaigns.broadcasts queue hands the recipients to the paced
// queue, the queue sends them to the loopback chat-app provider, and the relayed outcomes mark
// every recipient sent. Nothing drives a pass by hand.
const RECIPIENTS = 12;

describe('the worker process sends broadcasts', () => {
  jest.setTimeout(120_000);
  let c: CampaignsApp;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    // Role api: no relay, no consumers, no jobs here; the worker process does all of that.
    c = await startCampaignsApp({ role: 'api' });
  });
  afterAll(() => c.close());

  const http = (t: TestTenant, method: 'GET' | 'POST', url: string, payload?: object) =>
    c.app.inject({ method, url, headers: { ...t.session, prefer: 'return=representation' }, ...(payload ? { payload } : {}) });
  const recipients = async (t: TestTenant, id: string) =>
    (await http(t, 'GET', `/rest/v1/broadcast_recipients?broadcast_id=eq.${id}`)).json() as { phone: string; status: string; message_id: string | null }[];

  it('should hand out, send and mark every recipient of a started and a scheduled broadcast, once each', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const phones: string[] = [];
    for (let i = 0; i < RECIPIENTS; i++) {
      const phone = c.newPhone();
      phones.push(phone);
      await c.contact(t, { first_name: `Reem${i}`, tags: ['spring'], phones: [phone], opt_in_status: true });
    }
    await c.contact(t, { first_name: 'Nader', tags: ['spring'], phones: [c.newPhone()], opt_in_status: false });
    const segment = await http(t, 'POST', '/rest/v1/segments', { name: 'Spring', filter: 'tags=cs.{spring}' });
    expect(segment.statusCode).toBe(201);
    const draft = (text: string) =>
      http(t, 'POST', '/functions/v1/campaigns/broadcasts', {
        name: 'Spring sale',
        channel_account_id: account,
        audience: { segment_id: segment.json()[0].id },
        content: { text },
      });
    const personal = await draft('Hi {{contact.first_name}}, the spring sale starts today');
    const shared = await draft('The spring sale ends tonight');
    expect([personal.statusCode, shared.statusCode]).toEqual([201, 201]);
    const started = await http(t, 'POST', `/functions/v1/campaigns/broadcasts/${personal.json().id}/start`);
    expect(started.json()).toMatchObject({ status: 'sending', counts: { queued: RECIPIENTS, skipped_no_opt_in: 1 } });
    const at = new Date(Date.now() + 2_000).toISOString();
    const scheduled = await http(t, 'POST', `/functions/v1/campaigns/broadcasts/${shared.json().id}/schedule`, { at });
    expect(scheduled.json()).toMatchObject({ status: 'scheduled' });

    const worker = await startWorker({
      DATABASE_URL: c.runtime.config.DATABASE_URL,
      DATA_DIR: c.runtime.config.DATA_DIR,
      NOTIFY_URL: c.provider.url,
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: '',
      JOBS_POLL_MS: '50',
      OUTBOX_POLL_MS: '100',
    });
    try {
      for (const id of [personal.json().id as string, shared.json().id as string]) {
        const done = await until(
          async () => (await http(t, 'GET', `/functions/v1/campaigns/broadcasts/${id}`)).json(),
          (b) => b.status === 'completed',
        );
        expect(done.counts).toMatchObject({ sent: RECIPIENTS, queued: 0, failed: 0, skipped_no_opt_in: 1, total: RECIPIENTS + 1 });
        const rows = (await recipients(t, id)).filter((r) => r.status !== 'skipped_no_opt_in');
        expect(rows.map((r) => r.phone).sort()).toEqual([...phones].sort());
        expect(rows.every((r) => r.status === 'sent' && r.message_id !== null)).toBe(true);
      }
      // Each receiver got one personalised call of its own and the shared text once (in calls of several receivers).
      for (const phone of phones) {
        const texts = c.provider.callsTo(phone.replace(/^\+/, '')).map((call) => call.body.UOWCHAT.message);
        const shared = texts.filter((text) => text === 'The spring sale ends tonight');
        const own = texts.filter((text) => /^Hi Reem\d+, the spring sale starts today$/.test(text));
        expect({ phone, shared: shared.length, own: own.length, total: texts.length }).toEqual({ phone, shared: 1, own: 1, total: 2 });
      }
      expect(c.provider.calls.filter((call) => call.body.UOWCHAT.receivers.length > 1).length).toBeGreaterThan(0);
    } finally {
      worker.kill('SIGTERM');
      await exited(worker);
    }
  });
});
