import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestTenant } from '@engage/identity/testing';
import { UNPACED_PACING } from '@engage/messaging/testing';
import { type CampaignsApp, startCampaignsApp } from '@engage/campaigns/testing';
import { exited, root, startWorker, until } from './worker-processes';

// A sequence enrolled over HTTP on an api process, sent by a real worker process on the same
// database: its campaigns.sequences queue hands each due step to the paced queue, the queue sends
// it to the loopback chat-app provider, and a customer's reply (processed and relayed by the worker)
// ends that contact's run before its next step. Nothing drives a pass by hand.
describe('the worker process sends sequences', () => {
  jest.setTimeout(120_000);
  let c: CampaignsApp;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    c = await startCampaignsApp({ role: 'api' });
  });
  afterAll(() => c.close());

  const http = (t: TestTenant | Record<string, string>, method: 'GET' | 'POST', url: string, payload?: object) =>
    c.app.inject({ method, url, headers: 'session' in t ? (t as TestTenant).session : (t as Record<string, string>), ...(payload ? { payload } : {}) });
  const texts = (phone: string) => c.provider.callsTo(phone.replace(/^\+/, '')).map((call) => call.body.UOWCHAT.message);

  it('should send the steps on their delays and stop a contact who replied', async () => {
    const t = await c.newTenant();
    const created = await c.app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'chat_app', name: 'Drip' },
    });
    const { channel_account, inbound_token } = created.json() as { channel_account: { id: string }; inbound_token: string };
    await c.runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [channel_account.id, JSON.stringify(UNPACED_PACING)]);
    const replier = await c.contact(t, { first_name: 'Rana', phones: [c.newPhone()], opt_in_status: true });
    const stayer = await c.contact(t, { first_name: 'Sami', phones: [c.newPhone()], opt_in_status: true });
    const sequence = await http(t, 'POST', '/functions/v1/campaigns/sequences', {
      name: 'Welcome',
      channel_account_id: channel_account.id,
      steps: [
        { delay: {}, content: { text: 'Welcome {{contact.first_name}}' } },
        { delay: { seconds: 15 }, content: { text: 'Second' } },
        { delay: { seconds: 1 }, content: { text: 'Third' } },
      ],
    });
    expect(sequence.statusCode).toBe(201);
    const id = sequence.json().id as string;
    await http(t, 'POST', `/functions/v1/campaigns/sequences/${id}/activate`);
    const enrolled = await http(t, 'POST', `/functions/v1/campaigns/sequences/${id}/enrollments`, { contact_ids: [replier.id, stayer.id] });
    expect(enrolled.json()).toMatchObject({ enrolled: 2 });

    const worker = await startWorker({
      DATABASE_URL: c.runtime.config.DATABASE_URL,
      DATA_DIR: c.runtime.config.DATA_DIR,
      NOTIFY_URL: c.provider.url,
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: '',
      JOBS_POLL_MS: '50',
      OUTBOX_POLL_MS: '100',
      INBOUND_POLL_MS: '100',
    });
    try {
      await until(
        async () => [texts(replier.phones[0]), texts(stayer.phones[0])],
        ([a, b]) => a.length === 1 && b.length === 1,
      );
      const posted = await c.app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${channel_account.id}`,
        headers: { 'x-channel-token': inbound_token },
        payload: { type: 'message', id: `seq-e2e-${id}`, from: replier.phones[0].replace(/^\+/, ''), text: 'Thanks!' },
      });
      expect(posted.statusCode).toBe(200);
      const rows = async () =>
        (await http(t, 'GET', `/rest/v1/sequence_enrollments?sequence_id=eq.${id}&select=contact_id,status,exit_reason,current_step`)).json() as {
          contact_id: string;
          status: string;
          exit_reason: string | null;
          current_step: number;
        }[];
      const ended = await until(rows, (list) => list.every((r) => r.status !== 'active'));
      expect(Object.fromEntries(ended.map((r) => [r.contact_id, [r.status, r.exit_reason, r.current_step]]))).toEqual({
        [replier.id]: ['exited', 'reply', 1],
        [stayer.id]: ['completed', null, 3],
      });
      await until(
        async () => texts(stayer.phones[0]),
        (list) => list.length === 3,
      );
      expect(texts(stayer.phones[0])).toEqual(['Welcome Sami', 'Second', 'Third']);
      expect(texts(replier.phones[0])).toEqual(['Welcome Rana']);
    } finally {
      worker.kill('SIGTERM');
      await exited(worker);
    }
  });
});
