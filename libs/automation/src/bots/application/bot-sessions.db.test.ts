import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import { InboundProcessor } from '@engage/messaging';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver } from '@engage/platform/testing';
import { createTestTenant, memberHeaders, startRuleEngineApp, type TestTenant } from '../../testing/automation-test-app';
import { BotRuntime, STALLED_STEP_MINUTES } from './bot-runtime';

// Pacing off, so the bot's messages go at once to the sandbox chat-app provider.
const NO_PACING = { quiet_hours: null, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };

jest.setTimeout(120_000);

type Session = {
  id: string;
  status: string;
  end_reason: string | null;
  current_node: string | null;
  variables: Record<string, unknown>;
  version: number;
  handed_to: string | null;
};

describe('bot sessions', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  const cert = createSelfSignedCert();
  let counter = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, () => ({ status: 200, body: 'ok' }));
    ({ app, runtime, close } = await startRuleEngineApp(cert.certPath));
  });
  afterAll(async () => {
    await close();
    await receiver.close();
  });

  const read = async <T = Record<string, unknown>>(tenant: TestTenant, path: string) => {
    const res = await app.inject({ method: 'GET', url: `/rest/v1/${path}`, headers: tenant.session });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.body}`);
    return res.json() as T[];
  };
  const until = async <T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await probe();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const outboxDrained = async () =>
    (await runtime.db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)))[0].n === 0;

  // A tenant with a chat-app channel (pacing off) and the sandbox provider's key.
  const setUp = async () => {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'bot-test-key');
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: tenant.key,
      payload: { kind: 'chat_app', name: 'Line' },
    });
    const { channel_account, inbound_token } = created.json() as { channel_account: { id: string }; inbound_token: string };
    await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/channel-accounts/${channel_account.id}`,
      headers: tenant.key,
      payload: { pacing: NO_PACING },
    });
    return { tenant, accountId: channel_account.id, token: inbound_token };
  };
  type Line = Awaited<ReturnType<typeof setUp>>;
  // Customer messages from one phone, stored as the worker's inbound processing stores them; the conversation.
  const say = async (line: Line, phone: string, ...texts: string[]) => {
    for (const text of texts) {
      const posted = await app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${line.accountId}`,
        headers: { 'x-channel-token': line.token },
        payload: { type: 'message', id: `bot.${Date.now()}.${++counter}`, from: phone, text },
      });
      if (posted.statusCode !== 200) throw new Error(posted.body);
    }
    while ((await app.get(InboundProcessor).processDue()) > 0);
    const [conversation] = await read<{ id: string; contact_id: string }>(
      line.tenant,
      `conversations?channel_account_id=eq.${line.accountId}&select=id,contact_id&order=last_customer_message_at.desc&limit=1`,
    );
    return conversation;
  };
  const phone = () => `2010${String(20_000_000 + ++counter * 7919).slice(-8)}`;
  const botTexts = (tenant: TestTenant, conversationId: string) =>
    read<{ content: string; origin: string; origin_id: string }>(
      tenant,
      `messages?conversation_id=eq.${conversationId}&origin=eq.bot&select=content,origin,origin_id&order=created_at,id`,
    );
  const botSaid = (tenant: TestTenant, conversationId: string, count: number) =>
    until(
      'bot messages',
      () => botTexts(tenant, conversationId),
      (list) => list.length >= count,
    );
  const sessionOf = async (tenant: TestTenant, conversationId: string) =>
    (await read<Session>(tenant, `bot_sessions?conversation_id=eq.${conversationId}&order=started_at.desc`))[0];
  const sessionUntil = (tenant: TestTenant, conversationId: string, done: (session: Session) => boolean) =>
    until(
      'session',
      () => sessionOf(tenant, conversationId),
      (session) => session !== undefined && done(session),
    );
  const createFlow = async (tenant: TestTenant, flow: object) => {
    const res = await app.inject({ method: 'POST', url: '/rest/v1/bot_flows', headers: { ...tenant.session, prefer: 'return=representation' }, payload: flow });
    if (res.statusCode !== 201) throw new Error(res.body);
    const id = res.json()[0].id as string;
    const published = await app.inject({ method: 'POST', url: `/functions/v1/automation/bots/${id}/publish`, headers: tenant.session });
    if (published.statusCode !== 200) throw new Error(published.body);
    return id;
  };
  const simpleFlow = (accountId: string, thanks: string, extra: object = {}) => ({
    name: 'Name taker',
    channel_account_ids: [accountId],
    trigger: { type: 'any_message' },
    definition: {
      start: 'name',
      nodes: [
        { id: 'name', type: 'ask', text: 'Your name?', save_as: 'variables.name', next: 'bye' },
        { id: 'bye', type: 'end', text: `${thanks} {{variables.name}}` },
      ],
    },
    ...extra,
  });

  it('should greet, take a choice, retry an invalid email, save it to the contact, branch and hand off', async () => {
    const line = await setUp();
    const { tenant } = line;
    const owner = tenant.ctx.userId as string;
    const flowId = await createFlow(tenant, {
      name: 'Shop',
      channel_account_ids: [line.accountId],
      trigger: { type: 'new_conversation' },
      definition: {
        start: 'hello',
        nodes: [
          { id: 'hello', type: 'message', text: 'Hi {{contact.custom_fields.nick | there}}!', next: 'menu' },
          {
            id: 'menu',
            type: 'ask',
            text: 'What do you need?',
            validate: 'choice',
            choices: [
              { label: 'Buy', value: 'buy' },
              { label: 'Support', value: 'support' },
            ],
            save_as: 'variables.topic',
            next: 'email',
          },
          {
            id: 'email',
            type: 'ask',
            text: 'Your email?',
            validate: 'email',
            save_as: 'contact.emails',
            retry_text: 'That is not an email address; try again',
            next: 'route',
          },
          {
            id: 'route',
            type: 'branch',
            cases: [{ conditions: { all: [{ field: 'variables.topic', operator: 'equals', value: 'buy' }] }, next: 'tag' }],
            default: 'bye',
          },
          { id: 'tag', type: 'add_tags', tags: ['buyer'], next: 'hook' },
          { id: 'hook', type: 'webhook', url: `https://127.0.0.1:${receiver.port}/bot`, next: 'hand' },
          { id: 'hand', type: 'handoff', assignee: owner, note: 'Wants to {{variables.topic}}' },
          { id: 'bye', type: 'end', text: 'Bye' },
        ],
      },
    });
    const from = phone();
    const { id: conversationId, contact_id: contactId } = await say(line, from, 'Hello');
    expect((await botSaid(tenant, conversationId, 2)).map((m) => m.content)).toEqual(['Hi there!', 'What do you need?\n1. Buy\n2. Support']);
    expect(await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting')).toMatchObject({ current_node: 'menu', version: 1 });

    await say(line, from, 'buy');
    expect((await botSaid(tenant, conversationId, 3))[2].content).toBe('Your email?');
    await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting' && s.current_node === 'email');
    await say(line, from, 'ada at example');
    expect((await botSaid(tenant, conversationId, 4))[3].content).toBe('That is not an email address; try again');
    expect(await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting' && s.current_node === 'email')).toMatchObject({ retries: 1 });
    await say(line, from, 'Ada@Example.com');

    const ended = await sessionUntil(tenant, conversationId, (s) => s.status === 'handed_off');
    expect(ended).toMatchObject({ end_reason: 'handoff', current_node: 'hand', handed_to: owner, variables: { topic: 'buy' }, bot_flow_id: flowId });
    const sent = await botTexts(tenant, conversationId);
    expect(sent).toHaveLength(4);
    expect(sent.every((m) => m.origin === 'bot' && m.origin_id === flowId)).toBe(true);
    expect(await read(tenant, `contacts?id=eq.${contactId}&select=emails,tags`)).toEqual([{ emails: ['ada@example.com'], tags: ['buyer'] }]);
    expect(await read(tenant, `conversations?id=eq.${conversationId}&select=assignee_id`)).toEqual([{ assignee_id: owner }]);
    expect(await read(tenant, `notes?contact_id=eq.${contactId}&select=body`)).toEqual([{ body: 'Wants to buy' }]);
    const hook = receiver.received.filter((request) => request.path === '/bot');
    expect(hook).toHaveLength(1);
    expect(JSON.parse(hook[0].body)).toMatchObject({
      type: 'automation.bot',
      bot_flow: { id: flowId, version: 1 },
      node_id: 'hook',
      variables: { topic: 'buy' },
    });
  });

  it('should keep a running session on the version it started on when the flow is republished', async () => {
    const line = await setUp();
    const { tenant } = line;
    const flowId = await createFlow(tenant, simpleFlow(line.accountId, 'Thanks (v1)'));
    const from = phone();
    const { id: first } = await say(line, from, 'hi');
    await sessionUntil(tenant, first, (s) => s.status === 'waiting');
    const patched = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/bot_flows?id=eq.${flowId}`,
      headers: tenant.session,
      payload: simpleFlow(line.accountId, 'Thanks (v2)'),
    });
    expect(patched.statusCode).toBe(204);
    expect((await app.inject({ method: 'POST', url: `/functions/v1/automation/bots/${flowId}/publish`, headers: tenant.session })).json()).toMatchObject({
      version: 2,
    });

    await say(line, from, 'Ada');
    expect(await sessionUntil(tenant, first, (s) => s.status === 'completed')).toMatchObject({ version: 1, variables: { name: 'Ada' } });
    expect((await botTexts(tenant, first)).map((m) => m.content)).toEqual(['Your name?', 'Thanks (v1) Ada']);

    const other = phone();
    const { id: second } = await say(line, other, 'hello');
    await sessionUntil(tenant, second, (s) => s.status === 'waiting');
    await say(line, other, 'Grace');
    expect(await sessionUntil(tenant, second, (s) => s.status === 'completed')).toMatchObject({ version: 2 });
    expect((await botTexts(tenant, second)).map((m) => m.content)).toEqual(['Your name?', 'Thanks (v2) Grace']);
  });

  it("should stop on an agent's reply, and start no session while the people have the conversation", async () => {
    const line = await setUp();
    const { tenant } = line;
    await createFlow(tenant, simpleFlow(line.accountId, 'Thanks'));
    const from = phone();
    const { id: conversationId } = await say(line, from, 'hi');
    await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting');
    const reply = await app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${conversationId}/reply`,
      headers: tenant.session,
      payload: { message: 'An agent here' },
    });
    expect(reply.statusCode).toBe(200);
    expect(await sessionUntil(tenant, conversationId, (s) => s.status !== 'waiting')).toMatchObject({ status: 'stopped', end_reason: 'agent_reply' });
    await say(line, from, 'Ada');
    await until('events consumed', outboxDrained, Boolean);
    expect((await botTexts(tenant, conversationId)).map((m) => m.content)).toEqual(['Your name?']);
    expect(await read(tenant, `bot_sessions?conversation_id=eq.${conversationId}&select=status`)).toEqual([{ status: 'stopped' }]);
  });

  it('should take a burst of messages as one answer, stop on a finish keyword, and expire on the periodic pass', async () => {
    const line = await setUp();
    const { tenant } = line;
    await createFlow(tenant, simpleFlow(line.accountId, 'Thanks', { settings: { finish_keywords: ['stop'], expire_minutes: 30 } }));
    const burst = phone();
    const { id: first } = await say(line, burst, 'hi');
    await sessionUntil(tenant, first, (s) => s.status === 'waiting');
    await say(line, burst, 'Ada', 'Lovelace');
    expect(await sessionUntil(tenant, first, (s) => s.status === 'completed')).toMatchObject({ variables: { name: 'Ada\nLovelace' } });

    const quitter = phone();
    const { id: second } = await say(line, quitter, 'hi');
    await sessionUntil(tenant, second, (s) => s.status === 'waiting');
    await say(line, quitter, ' STOP ');
    expect(await sessionUntil(tenant, second, (s) => s.status !== 'waiting')).toMatchObject({ status: 'stopped', end_reason: 'finish_keyword' });

    const silent = phone();
    const { id: third } = await say(line, silent, 'hi');
    await sessionUntil(tenant, third, (s) => s.status === 'waiting');
    const bots = app.get(BotRuntime);
    await bots.sweep(new Date(Date.now() + 29 * 60_000));
    expect((await sessionOf(tenant, third)).status).toBe('waiting');
    await bots.sweep(new Date(Date.now() + 31 * 60_000));
    expect(await sessionOf(tenant, third)).toMatchObject({ status: 'expired', end_reason: 'no_answer' });
  });

  it('should stop on the periodic pass a session left in a step by a process that died, and only after the bound', async () => {
    const line = await setUp();
    const { tenant } = line;
    await createFlow(tenant, simpleFlow(line.accountId, 'Thanks'));
    const { id } = await say(line, phone(), 'hi');
    await sessionUntil(tenant, id, (s) => s.status === 'waiting');
    // As a worker killed while it ran the steps after an answer leaves it: active, not moving.
    const movedAt = new Date(Date.now() - 60_000);
    await runtime.db.asSystem((tx) => tx.execute(`UPDATE bot_sessions SET status = 'active', updated_at = $2 WHERE conversation_id = $1`, [id, movedAt]));
    const bots = app.get(BotRuntime);
    await bots.sweep(new Date(movedAt.getTime() + (STALLED_STEP_MINUTES - 1) * 60_000));
    expect(await sessionOf(tenant, id)).toMatchObject({ status: 'active', end_reason: null });
    await bots.sweep(new Date(movedAt.getTime() + STALLED_STEP_MINUTES * 60_000));
    expect(await sessionOf(tenant, id)).toMatchObject({ status: 'stopped', end_reason: 'stalled' });
  });

  it('should follow an ask’s timeout on the periodic pass', async () => {
    const line = await setUp();
    const { tenant } = line;
    const flow = simpleFlow(line.accountId, 'Thanks');
    const [ask, bye] = flow.definition.nodes;
    const late = { id: 'late', type: 'end', text: 'No answer; an agent will write.' };
    await createFlow(tenant, { ...flow, definition: { start: 'name', nodes: [{ ...ask, timeout_minutes: 5, on_timeout: 'late' }, bye, late] } });
    const { id } = await say(line, phone(), 'hi');
    await sessionUntil(tenant, id, (s) => s.status === 'waiting');
    await app.get(BotRuntime).sweep(new Date(Date.now() + 6 * 60_000));
    expect(await sessionUntil(tenant, id, (s) => s.status !== 'waiting')).toMatchObject({ status: 'completed', current_node: 'late' });
    expect((await botTexts(tenant, id)).map((m) => m.content)).toEqual(['Your name?', 'No answer; an agent will write.']);
  });

  it("should start a flow by a rule's start_bot action, and log a failure for a flow that is not published", async () => {
    const line = await setUp();
    const { tenant } = line;
    // A keyword no customer says: only the rule starts this flow.
    const flowId = await createFlow(tenant, simpleFlow(line.accountId, 'Thanks', { trigger: { type: 'keyword', keywords: ['never-said'] } }));
    const draft = await app.inject({
      method: 'POST',
      url: '/rest/v1/bot_flows',
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: simpleFlow(line.accountId, 'Draft', { trigger: { type: 'keyword', keywords: ['never-said'] } }),
    });
    const rule = (name: string, botFlowId: string, word: string) =>
      app.inject({
        method: 'POST',
        url: '/rest/v1/automation_rules',
        headers: tenant.session,
        payload: {
          name,
          event: 'message.received',
          conditions: { all: [{ field: 'message.content', operator: 'contains', value: word }] },
          actions: [{ type: 'start_bot', bot_flow_id: botFlowId }],
        },
      });
    expect((await rule('Bot on help', flowId, 'help')).statusCode).toBe(201);
    expect((await rule('Draft on draft', draft.json()[0].id, 'draft')).statusCode).toBe(201);
    const { id: conversationId } = await say(line, phone(), 'help me');
    expect(await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting')).toMatchObject({ bot_flow_id: flowId, version: 1 });
    expect((await botTexts(tenant, conversationId)).map((m) => m.content)).toEqual(['Your name?']);
    const [run] = await until(
      'run',
      () =>
        read<{ status: string; actions: { type: string; status: string; result?: { session_id?: string } }[] }>(
          tenant,
          'automation_runs?select=status,actions',
        ),
      (runs) => runs.length === 1 && runs[0].status !== 'running',
    );
    expect(run.actions[0]).toMatchObject({ type: 'start_bot', status: 'succeeded', result: { status: 'waiting' } });

    const { id: other } = await say(line, phone(), 'a draft');
    const runs = await until(
      'runs',
      () => read<{ status: string; actions: { error?: string }[] }>(tenant, 'automation_runs?select=status,actions&order=started_at'),
      (list) => list.length === 2 && list[1].status !== 'running',
    );
    expect(runs[1]).toMatchObject({ status: 'failed', actions: [{ error: expect.stringMatching(/bot_flow.*not found/) }] });
    expect(await read(tenant, `bot_sessions?conversation_id=eq.${other}`)).toEqual([]);
  });

  it('should let any member stop a session, answering bad input with a 4xx', async () => {
    const line = await setUp();
    const { tenant } = line;
    await createFlow(tenant, simpleFlow(line.accountId, 'Thanks'));
    const { id: conversationId } = await say(line, phone(), 'hi');
    const session = await sessionUntil(tenant, conversationId, (s) => s.status === 'waiting');
    const stop = (headers: Record<string, string>, id: string) =>
      app.inject({ method: 'POST', url: `/functions/v1/automation/bot-sessions/${id}/stop`, headers });
    const other = await createTestTenant(app);
    expect((await stop(other.session, session.id)).statusCode).toBe(404);
    const badId = await stop(tenant.session, 'nope');
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ code: 'bot_session.invalid_id' });
    expect((await stop(tenant.session, randomUUID())).statusCode).toBe(404);
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const stopped = await stop(agent, session.id);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ id: session.id, status: 'stopped', end_reason: 'agent_stop' });
    expect(stopped.json()).not.toHaveProperty('pending');
    const again = await stop(agent, session.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'bot_session.not_open' });
    // Sessions are read-only through the data API and kept to their organization.
    expect(
      (await app.inject({ method: 'PATCH', url: `/rest/v1/bot_sessions?id=eq.${session.id}`, headers: tenant.session, payload: { status: 'active' } }))
        .statusCode,
    ).toBe(405);
    expect(await read(other, 'bot_sessions')).toEqual([]);
  });
});
