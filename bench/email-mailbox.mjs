// node bench/email-mailbox.mjs: one email mailbox holding BENCH_EMAILS mails (default 1,000: 200
// threads of 5 from 200 senders, the replies threaded by In-Reply-To and References, every fifth
// thread's replies by subject only) read by the email channel's mailbox reader in one run: fetched
// from a real Dovecot (scripts/dovecot-local.sh), parsed, threaded and stored. Reports the seconds,
// mails per second and this process's peak RSS, and checks every mail stored once in 200
// conversations. Builds nothing: run `node scripts/build.mjs` first. Embedded PostgreSQL unless
// DATABASE_URL is set. Prints its figures (no results file).
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const out = (path) => require(join(root, 'dist/out/libs', path));
const { ImapFlow } = require('imapflow');
const MailComposer = require('nodemailer/lib/mail-composer');

const count = Number(process.env.BENCH_EMAILS ?? 1000);
const perThread = 5;
const port = Number(process.env.DOVECOT_PORT ?? 10143);
const dovecotDir = process.env.DOVECOT_DIR ?? join(process.env.TMPDIR ?? tmpdir(), 'engage-dovecot');

async function fillMailbox(user, password, address) {
  const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
  await client.connect();
  for (let i = 0; i < count; i++) {
    const thread = Math.floor(i / perThread);
    const n = i % perThread;
    const byHeaders = thread % 5 !== 0;
    const ids = Array.from({ length: n }, (_, k) => `<t${thread}-${k}@bench.test>`);
    const mail = new MailComposer({
      from: `Customer ${thread} <c${thread}@bench.test>`,
      to: address,
      subject: `${n > 0 ? 'Re: ' : ''}Thread ${thread}`,
      messageId: `<t${thread}-${n}@bench.test>`,
      date: new Date(),
      ...(n > 0 && byHeaders ? { inReplyTo: ids[n - 1], references: ids } : {}),
      text: `Mail ${n} of thread ${thread}. ${'Some words of a customer mail. '.repeat(10)}`,
      html: `<p>Mail ${n} of thread <b>${thread}</b>.</p><p>${'Some words of a customer mail. '.repeat(10)}</p>`,
    });
    await client.append('INBOX', await mail.compile().build());
  }
  await client.logout();
}

async function main() {
  execFileSync(join(root, 'scripts/dovecot-local.sh'), ['start'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const user = `bench-${randomUUID().slice(0, 8)}`;
  const password = randomUUID();
  mkdirSync(join(dovecotDir, 'users'), { recursive: true });
  writeFileSync(join(dovecotDir, 'users', user), `${user}:{PLAIN}${password}\n`);
  const address = `${user}@shop.test`;
  const filling = Date.now();
  await fillMailbox(user, password, address);
  const filled = (Date.now() - filling) / 1000;

  const { loadConfig, startPlatform, SecretBox, OutboundClient } = out('platform/src/index.js');
  const { makeOrganization } = out('platform/src/testing/test-runtime.js');
  const { identityMigrations } = out('identity/src/index.js');
  const { crmMigrations, ContactService } = out('crm/src/index.js');
  const { messagingMigrations } = out('messaging/src/index.js');
  const { ChannelAccountService } = out('messaging/src/conversations/channel-account.service.js');
  const { EmailInbound } = out('messaging/src/channels/email/email-inbound.js');
  const { EmailMailboxReader } = out('messaging/src/channels/email/email-mailbox.js');
  const { EmailTransport } = out('messaging/src/channels/email/email-transport.js');

  const dataDir = mkdtempSync(join(tmpdir(), 'engage-bench-email-'));
  // PostgreSQL runs as nobody when started by root: it must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const given = process.env.DATABASE_URL;
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', OUTBOUND_ALLOW_HOSTS: '127.0.0.1', ...(given ? { DATABASE_URL: given } : {}) });
  const runtime = await startPlatform(config, { role: 'api', migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations] });
  try {
    const ctx = await makeOrganization(runtime, 'Email bench');
    const box = new SecretBox(randomBytes(32));
    const imap = { host: '127.0.0.1', port, secure: false, user, password };
    const { channel_account: channel } = await new ChannelAccountService(runtime.db, box).create(ctx, {
      kind: 'email',
      name: 'Bench',
      address,
      imap,
      smtp: { ...imap, port: 2525 },
    });
    const media = {
      put: async () => {
        throw new Error('no attachments in this bench');
      },
    };
    const transport = new EmailTransport(new OutboundClient({ allowHosts: ['127.0.0.1'] }), ['127.0.0.1'], 15000);
    const reader = new EmailMailboxReader(runtime.db, box, transport, new EmailInbound(new ContactService(runtime.db)), media, {
      idleMs: 0,
      maxMessages: count * 2,
      batchSize: 50,
    });
    const rssBefore = process.memoryUsage().rss;
    const started = process.hrtime.bigint();
    const run = await reader.read(ctx.organizationId, channel.id);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const [stored] = await runtime.db.inTenant(ctx, (tx) =>
      tx.query(`SELECT (SELECT count(*)::int FROM messages) AS messages, (SELECT count(*)::int FROM conversations) AS conversations,
        (SELECT count(DISTINCT email_message_id)::int FROM messages) AS distinct_ids`),
    );
    console.log(
      JSON.stringify(
        {
          emails: count,
          run,
          filled_seconds: filled,
          seconds: Number(seconds.toFixed(2)),
          per_second: Math.round(count / seconds),
          rss_before_mb: Math.round(rssBefore / 2 ** 20),
          peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
          stored,
          expected: { messages: count, conversations: Math.ceil(count / perThread) },
          node: process.version,
          database: given ? 'DATABASE_URL' : 'embedded',
        },
        null,
        2,
      ),
    );
  } finally {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
