import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ContactService } from '@engage/crm';
import { OutboundDispatcher, PendingSendSweeper } from '@engage/messaging';
import { type ChatLiteTestApp, startChatLiteTestApp, UNPACED_PACING } from '@engage/messaging/testing';
import { exited, root, startWorker, until } from './worker-processes';

// Worker processes killed (SIGKILL) in the middle of a paced burst: no message is sent twice. The
// message whose provider call was in flight becomes FAILED outcome_unknown and is not resent; the
// rest go out once from the next worker process.
const MESSAGES = 40;

describe('the paced queue survives killed worker processes', () => {
  jest.setTimeout(180_000);
  let chat: ChatLiteTestApp;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    chat = await startChatLiteTestApp();
  });
  afterAll(() => chat.close());

  it('should never send a message twice when workers are killed during a burst', async () => {
    const { app, runtime, provider } = chat;
    const t = await chat.newTenant();
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'chat_app', name: 'Burst' },
    });
    const accountId = created.json().channel_account.id as string;
    await runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [accountId, JSON.stringify(UNPACED_PACING)]);
    const numbers: string[] = [];
    const ids: string[] = [];
    const broadcast = randomUUID();
    for (let i = 0; i < MESSAGES; i++) {
      const phone = chat.newNumber();
      const contact = await app.get(ContactService).create(t.ctx, { first_name: `R${i}`, phones: [`+${phone}`] });
      const queued = await app
        .get(OutboundDispatcher)
        .enqueue(
          t.ctx,
          { channelAccountId: accountId, contactId: contact.id },
          { message: `Code ${i}`, mediaUrls: [], author: { origin: 'api_queued', originId: broadcast } },
        );
      numbers.push(phone);
      ids.push(...queued.messageIds);
    }
    // Each provider call takes 150 ms, so a kill lands during one.
    provider.script = () => ({ status: 200, body: { status: true, message: 'Message sent', external_id: `ext-${randomUUID()}` }, delayMs: 150 });
    const env = {
      DATABASE_URL: runtime.config.DATABASE_URL,
      DATA_DIR: runtime.config.DATA_DIR,
      NOTIFY_URL: provider.url,
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: '',
      JOBS_POLL_MS: '50',
      OUTBOX_POLL_MS: '60000',
    };
    const statuses = async () => {
      const rows = await runtime.db.systemQuery<{ status: string; error: string | null }>('SELECT status, error FROM messages WHERE id = ANY($1::uuid[])', [
        ids,
      ]);
      const count = (status: string) => rows.filter((r) => r.status === status).length;
      return { sent: count('SENT'), failed: count('FAILED'), pending: count('PENDING'), queued: count('QUEUED'), rows };
    };
    const sweeper = new PendingSendSweeper(runtime.db, { staleAfterMs: 0 });

    // Two kills, each while a provider call of the dying worker is on the wire (the provider has it,
    // its answer has not come back).
    let unanswered = 0;
    for (const after of [8, 20]) {
      const worker = await startWorker(env);
      await until(
        async () => ({ ...(await statuses()), calls: provider.calls.length }),
        (s) => s.sent >= after && s.pending === 1 && s.calls === s.sent + unanswered + 1,
      );
      worker.kill('SIGKILL');
      expect(await exited(worker)).toBe('SIGKILL');
      unanswered += 1;
      // Its lease (120 s) lapses and the sweeper's minute passes.
      await runtime.db.systemQuery('UPDATE channel_accounts SET queue_lease_until = NULL WHERE id = $1', [accountId]);
      expect(await sweeper.sweep()).toBe(1);
    }
    const last = await startWorker(env);
    try {
      const settled = await until(statuses, (s) => s.sent + s.failed === MESSAGES);
      expect(settled.failed).toBe(2);
      expect(settled.rows.filter((r) => r.status === 'FAILED').map((r) => r.error)).toEqual(['outcome_unknown', 'outcome_unknown']);
      // Every receiver got exactly one call: the two in flight reached the provider once and were not resent.
      const calls = numbers.map((n) => provider.callsTo(n).length);
      expect(calls.filter((n) => n !== 1)).toEqual([]);
      // Nothing more goes out afterwards.
      await new Promise((r) => setTimeout(r, 500));
      expect(provider.calls.length).toBe(MESSAGES);
    } finally {
      last.kill('SIGTERM');
      await exited(last);
    }
  });
});
