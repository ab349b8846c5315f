import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import { defineJob, JobRunner, type PlatformRuntime, SecretBox } from '@engage/platform';
import { GraphProfileApi } from './graph-profile-api';
import { GraphApiFake, metaBody } from '../../testing/meta-peers';
import { type MetaTestApp, newMetaId as newId, startMetaTestApp } from '../../testing/meta-test-app';
import { waitFor } from '../../testing/wait-for';
import { META_PROFILE_ATTEMPTS, metaProfileJob, MetaProfileLookup } from './meta-profile.job';

const TOKEN = `EAAG${'p'.repeat(40)}`;
const TIMEOUT_MS = 300;
const graph = new GraphApiFake();
const logs: Array<{ fields: Record<string, unknown>; line: string }> = [];
let meta: MetaTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let lookup: MetaProfileLookup;

beforeAll(async () => {
  await graph.start();
  meta = await startMetaTestApp({ secret: 'meta-app-secret-for-profile-tests', graphUrl: graph.url });
  ({ app, runtime } = meta);
  // The production handler against the fake Graph API, with a short time-out and fast retries.
  lookup = new MetaProfileLookup(runtime.db, app.get(ContactService), app.get(SecretBox), new GraphProfileApi(graph.url, TIMEOUT_MS), (fields, line) =>
    logs.push({ fields, line }),
  );
});
afterAll(async () => {
  await meta.close();
  await graph.stop();
});

const sql = <T = Record<string, unknown>>(t: TestTenant, text: string, params: unknown[] = []) => meta.rows<T>(t, text, params);
const withAccount = (kind: 'messenger' | 'instagram') => meta.connectAccount(kind, TOKEN);

// Customers write; the worker stores their messages (creating their contacts) and the runner then
// runs every profile job of the organization to its end.
async function customersWrite(t: TestTenant, object: 'page' | 'instagram', accountId: string, users: string[]) {
  const messaging = users.map((user) => ({
    sender: { id: user },
    recipient: { id: accountId },
    timestamp: Date.now(),
    message: { mid: `m_${newId()}`, text: 'hi' },
  }));
  expect((await meta.send(metaBody(object, accountId, messaging))).status).toBe(200);
  await meta.drain();
  expect(await sql(t, 'SELECT 1 FROM messages')).toHaveLength(users.length);
}
// A job runner until every job of the organization has ended (finished jobs are deleted).
async function jobsDone(t: TestTenant): Promise<void> {
  const job = defineJob({ name: metaProfileJob.name, handler: lookup, retry: { maxAttempts: META_PROFILE_ATTEMPTS, baseMs: 20, maxMs: 50 } });
  const runner = new JobRunner(runtime.db, { jobs: [job], schedules: [], concurrency: 2, pollMs: 20 });
  void runner.start();
  try {
    await waitFor(async () => {
      const rows = await runtime.db.asSystem((tx) => tx.query("SELECT 1 FROM jobs WHERE organization_id = $1 AND state <> 'dead'", [t.ctx.organizationId]));
      return rows.length === 0;
    });
  } finally {
    await runner.stop();
  }
}
const contactOf = async (t: TestTenant, user: string) => {
  const [row] = await sql<{ first_name: string; last_name: string | null; custom_fields: Record<string, unknown> }>(
    t,
    'SELECT c.first_name, c.last_name, c.custom_fields FROM contacts c JOIN channel_contacts cc ON cc.contact_id = c.id WHERE cc.external_user_id = $1',
    [user],
  );
  return row;
};
const callsFor = (user: string) => graph.calls.filter((c) => c.method === 'GET' && c.path.includes(`/${user}?`));

describe('contact names from the Graph API', () => {
  it('should name a new Messenger or Instagram contact from its profile with the page token as a bearer header, and leave a renamed one', async () => {
    const page = await withAccount('messenger');
    const [sara, kept] = [`psid-${newId()}`, `psid-${newId()}`];
    graph.setProfile(sara, { first_name: 'Sara', last_name: 'Nabil', profile_pic: 'https://cdn.example/sara.jpg', email: 'not asked for' });
    graph.setProfile(kept, { first_name: 'Graph', last_name: 'Name' });
    await customersWrite(page.t, 'page', page.accountId, [sara, kept]);
    expect(await contactOf(page.t, sara)).toMatchObject({ first_name: 'Unknown Contact', last_name: null });
    // An agent names one contact before the job runs: the agent's name wins.
    const rename = "UPDATE contacts SET first_name = 'Named by agent' WHERE id = (SELECT contact_id FROM channel_contacts WHERE external_user_id = $1)";
    await sql(page.t, rename, [kept]);
    await jobsDone(page.t);
    expect(await contactOf(page.t, sara)).toEqual({
      first_name: 'Sara',
      last_name: 'Nabil',
      custom_fields: { profile_pic_url: 'https://cdn.example/sara.jpg' },
    });
    expect((await contactOf(page.t, kept)).first_name).toBe('Named by agent');
    const [call] = callsFor(sara);
    expect(call.path).toBe(`/v23.0/${sara}?fields=first_name,last_name,profile_pic`);
    expect(call.authorization).toBe(`Bearer ${TOKEN}`);
    const updated = await runtime.db.asSystem((tx) =>
      tx.query("SELECT 1 FROM outbox WHERE organization_id = $1 AND type = 'contact.updated'", [page.t.ctx.organizationId]),
    );
    expect(updated).toHaveLength(1);

    const ig = await withAccount('instagram');
    const lina = `igsid-${newId()}`;
    graph.setProfile(lina, { name: 'Lina K', username: 'lina.k', profile_pic: 'https://cdn.example/lina.jpg' });
    await customersWrite(ig.t, 'instagram', ig.accountId, [lina]);
    await jobsDone(ig.t);
    expect(await contactOf(ig.t, lina)).toEqual({
      first_name: 'Lina K',
      last_name: null,
      custom_fields: { profile_pic_url: 'https://cdn.example/lina.jpg', username: 'lina.k' },
    });
    expect(callsFor(lina)[0].path).toBe(`/v23.0/${lina}?fields=name,username,profile_pic`);
  });

  it('should keep the placeholder name and log the Graph error, without the token, once', async () => {
    const page = await withAccount('messenger');
    const user = `psid-${newId()}`; // no profile: Graph answers 400, code 100
    const before = logs.length;
    await customersWrite(page.t, 'page', page.accountId, [user]);
    await jobsDone(page.t);
    expect(await contactOf(page.t, user)).toMatchObject({ first_name: 'Unknown Contact', last_name: null });
    expect(callsFor(user)).toHaveLength(1); // a 4xx is not tried again
    const logged = logs.slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0].fields.error).toBe(`Graph API error (400, code 100): (#100) Object with ID '${user}' does not exist`);
    expect(JSON.stringify(logged)).not.toContain(TOKEN);
  });

  it('should keep the placeholder and log when the contact refuses the profile (custom fields full)', async () => {
    const page = await withAccount('messenger');
    const user = `psid-${newId()}`;
    graph.setProfile(user, { first_name: 'Full', last_name: 'Fields', profile_pic: `https://cdn.example/${'p'.repeat(1000)}.jpg` });
    await customersWrite(page.t, 'page', page.accountId, [user]);
    const full = { notes: 'n'.repeat(16_384 - 20) };
    await sql(page.t, 'UPDATE contacts SET custom_fields = $2 WHERE id = (SELECT contact_id FROM channel_contacts WHERE external_user_id = $1)', [user, full]);
    const before = logs.length;
    await jobsDone(page.t);
    expect(await contactOf(page.t, user)).toEqual({ first_name: 'Unknown Contact', last_name: null, custom_fields: full });
    expect(logs.slice(before).map((l) => l.line)).toEqual(['meta profile could not be stored: the contact keeps its placeholder name']);
    expect(await runtime.db.asSystem((tx) => tx.query("SELECT 1 FROM jobs WHERE state = 'dead'"))).toHaveLength(0);
  });

  it('should give up on a slow Graph API after its attempts, keeping the placeholder and the message', async () => {
    const page = await withAccount('messenger');
    const user = `psid-${newId()}`;
    graph.setProfile(user, { first_name: 'Too', last_name: 'Late' });
    for (let i = 0; i < META_PROFILE_ATTEMPTS; i++) graph.delayNext(TIMEOUT_MS * 4);
    const before = logs.length;
    await customersWrite(page.t, 'page', page.accountId, [user]);
    await jobsDone(page.t);
    expect(await contactOf(page.t, user)).toMatchObject({ first_name: 'Unknown Contact', last_name: null });
    expect(callsFor(user)).toHaveLength(META_PROFILE_ATTEMPTS);
    const logged = logs.slice(before);
    expect(logged.map((l) => [l.fields.error, l.fields.attempt])).toEqual([[`Graph API did not answer within ${TIMEOUT_MS} ms`, META_PROFILE_ATTEMPTS]]);
    expect(JSON.stringify(logged)).not.toContain(TOKEN);
    expect(await runtime.db.asSystem((tx) => tx.query("SELECT 1 FROM jobs WHERE state = 'dead'"))).toHaveLength(0);
  });
});
