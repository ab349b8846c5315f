import { createHmac, randomUUID } from 'node:crypto';
import { Database } from '@engage/platform';
import { signBody } from '../domain/signature';
import { type BillingApp, createTestTenant, event, post, postSigned, PREVIOUS_SECRET, SECRET, startBillingApp } from '../testing/billing-test-app';

describe('POST /functions/v1/storefront-billing-webhook', () => {
  let t: BillingApp;
  beforeAll(async () => {
    t = await startBillingApp();
  });
  afterAll(() => t.close());

  const row = async (storeId: string) => {
    const select = 'SELECT * FROM subscriptions WHERE storefront_store_id = $1';
    const rows = await t.app.get(Database).asSystem((tx) => tx.query<Record<string, unknown>>(select, [storeId]));
    return rows[0];
  };

  describe('signature', () => {
    let payload: string;
    beforeAll(async () => {
      const tenant = await createTestTenant(t.app);
      payload = JSON.stringify(event(tenant.ctx.organizationId));
    });
    const hex = (secret: string, body = payload) => createHmac('sha256', secret).update(body).digest('hex');

    it.each([
      ['bare hex', () => hex(SECRET)],
      ['sha256= and hex', () => `sha256=${hex(SECRET)}`],
      ['upper-case hex', () => hex(SECRET).toUpperCase()],
      ['the previous secret during a rotation', () => `sha256=${hex(PREVIOUS_SECRET)}`],
    ])('accepts %s', async (_case, signature) => {
      const response = await post(t.app, payload, signature());
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ ok: true, applied: true });
    });

    it.each([
      ['a wrong secret', () => hex('another-secret-0123456789abcdef')],
      ['one altered byte of the body', () => hex(SECRET)],
      ['a truncated signature', () => hex(SECRET).slice(0, 63)],
      ['a signature of a different length', () => `${hex(SECRET)}00`],
      ['an empty signature', () => ''],
      ['a signature that is not hex', () => 'z'.repeat(64)],
      ['a signature over re-serialised JSON', () => hex(SECRET, JSON.stringify(JSON.parse(payload), null, 2))],
      ['the wrong prefix', () => `sha1=${hex(SECRET)}`],
    ])('refuses %s with 401', async (name, signature) => {
      const body = name === 'one altered byte of the body' ? payload.replace('"active"', '"activf"') : payload;
      const response = await post(t.app, body, signature());
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: expect.any(String), code: 'billing.invalid_signature' });
    });

    it('refuses a missing header with 401, before looking at the body', async () => {
      const response = await post(t.app, '{not json', null);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('The signature header is missing');
    });

    it('checks the signature before parsing: an unsigned malformed body is 401, a signed one 400', async () => {
      expect((await post(t.app, '{not json', hex(SECRET, '{other'))).statusCode).toBe(401);
      const signed = await post(t.app, '{not json', hex(SECRET, '{not json'));
      expect(signed.statusCode).toBe(400);
      expect(signed.json().code).toBe('invalid_json');
    });

    it('takes a JSON body with a charset, and refuses another media type with 415', async () => {
      const withCharset = await post(t.app, payload, hex(SECRET), { 'content-type': 'application/json; charset=utf-8' });
      expect(withCharset.statusCode).toBe(200);
      const text = await post(t.app, payload, hex(SECRET), { 'content-type': 'text/plain' });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toMatchObject({ error: expect.any(String) });
    });

    it('refuses a body over 64 KiB with 413', async () => {
      const big = JSON.stringify({ ...JSON.parse(payload), padding: 'x'.repeat(64 * 1024) });
      const response = await post(t.app, big, hex(SECRET, big));
      expect(response.statusCode).toBe(413);
    });
  });

  it('is described in the OpenAPI document: its body, its signature header and its error statuses', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const operation = doc.paths['/functions/v1/storefront-billing-webhook'].post;
    expect(operation.requestBody.content['application/json'].schema.required).toEqual(['organization_id', 'plan_id', 'storefront_store_id', 'status']);
    expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'X-Billing-Signature', in: 'header', required: true }));
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409', '413', '415', '422', '503']));
  });

  it('reads the signature from the header BILLING_SIGNATURE_HEADER names, and only from it', async () => {
    const custom = await startBillingApp({ BILLING_WEBHOOK_SECRET: SECRET, BILLING_SIGNATURE_HEADER: 'X-Store-Signature' });
    try {
      const tenant = await createTestTenant(custom.app);
      const payload = JSON.stringify(event(tenant.ctx.organizationId));
      const signature = signBody(payload, SECRET);
      expect((await post(custom.app, payload, signature)).statusCode).toBe(401);
      expect((await post(custom.app, payload, null, { 'x-store-signature': signature })).statusCode).toBe(200);
    } finally {
      await custom.close();
    }
  });

  it('answers 503 when no secret is configured, whatever is sent', async () => {
    const bare = await startBillingApp({});
    try {
      const response = await postSigned(bare.app, event(randomUUID()));
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: expect.any(String), code: 'billing.not_configured' });
    } finally {
      await bare.close();
    }
  });

  describe('bad input', () => {
    let org: string;
    beforeAll(async () => {
      org = (await createTestTenant(t.app)).ctx.organizationId;
    });

    it.each([
      ['organization_id', { organization_id: undefined }],
      ['organization_id', { organization_id: 'not-a-uuid' }],
      ['organization_id', { organization_id: 42 }],
      ['plan_id', { plan_id: undefined }],
      ['plan_id', { plan_id: ['starter'] }],
      ['plan_id', { plan_id: 'x'.repeat(256) }],
      ['storefront_store_id', { storefront_store_id: undefined }],
      ['storefront_store_id', { storefront_store_id: 1.5 }],
      ['storefront_store_id', { storefront_store_id: -1 }],
      ['storefront_store_id', { storefront_store_id: '' }],
      ['storefront_store_id', { storefront_store_id: 'a\u0000b' }],
      ['storefront_store_id', { storefront_store_id: { id: 1 } }],
      ['status', { status: 'paused' }],
      ['status', { status: undefined }],
      ['shop_domain', { shop_domain: 7 }],
      ['shop_domain', { shop_domain: 'd'.repeat(300) }],
      ['current_period_start', { current_period_start: 'yesterday' }],
      ['current_period_start', { current_period_start: 1767225600 }],
      ['current_period_end', { current_period_end: '2026-13-45T00:00:00Z' }],
      ['current_period_start', { current_period_start: '2026-02-30T00:00:00Z' }],
      ['current_period_end', { current_period_end: '2026-02-29T00:00:00Z' }],
      ['trial_start', { trial_start: '2026-06-31T00:00:00Z' }],
      ['trial_end', { trial_end: '2026-01-01T25:00:00Z' }],
      ['current_period_start', { current_period_start: '2026-03-01T00:00:00' }],
      ['current_period_end', { current_period_end: '2026-03-01' }],
      ['trial_end', { trial_end: true }],
      ['cancel_at_period_end', { cancel_at_period_end: 'yes' }],
    ])('refuses a bad %s with 400 naming it (%j)', async (field, overrides) => {
      const response = await postSigned(t.app, event(org, overrides));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: expect.stringContaining(field), code: 'invalid_field' });
    });

    it.each([['[]'], ['null'], ['"text"'], ['12']])('refuses a body that is not an object (%s) with 400', async (body) => {
      const response = await postSigned(t.app, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('invalid_json');
    });

    it('answers 404 for an unknown organization', async () => {
      const response = await postSigned(t.app, event(randomUUID()));
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('organization.not_found');
    });

    it('stores nothing for an impossible date, so the valid event that follows is applied, not stale (2026-02-30 was read as 2026-03-02)', async () => {
      const tenant = await createTestTenant(t.app);
      const own = tenant.ctx.organizationId;
      const impossible = await postSigned(t.app, event(own, { current_period_start: '2026-02-30T00:00:00Z', current_period_end: '2026-03-30T00:00:00Z' }));
      expect(impossible.statusCode).toBe(400);
      expect(impossible.json()).toMatchObject({ code: 'invalid_field', error: expect.stringContaining('current_period_start has no day 30 in 2026-02') });
      expect(await row(`store-${own}`)).toBeUndefined();
      const valid = await postSigned(t.app, event(own, { current_period_start: '2026-03-01T00:00:00Z', current_period_end: '2026-04-01T00:00:00Z' }));
      expect(valid.statusCode).toBe(200);
      expect(valid.json()).toMatchObject({ applied: true, status: 'active' });
      expect(await row(`store-${own}`)).toMatchObject({ current_period_start: new Date('2026-03-01T00:00:00Z') });
    });

    it('answers 422 for an unknown plan', async () => {
      const response = await postSigned(t.app, event(org, { plan_id: 'platinum' }));
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ code: 'billing.unknown_plan', error: expect.stringContaining('plan_id') });
    });

    it('answers 422 for an organization without an OWNER', async () => {
      const orphan = randomUUID();
      await t.app.get(Database).asSystem((tx) => tx.query(`INSERT INTO organizations (id, name) VALUES ($1, 'No owner')`, [orphan]));
      const response = await postSigned(t.app, event(orphan));
      expect(response.statusCode).toBe(422);
      expect(response.json().code).toBe('billing.no_owner');
    });

    it('answers 409 for a store billed to another organization, and for a second store of one organization', async () => {
      const other = (await createTestTenant(t.app)).ctx.organizationId;
      expect((await postSigned(t.app, event(org, { storefront_store_id: 'shared-store' }))).statusCode).toBe(200);
      const taken = await postSigned(t.app, event(other, { storefront_store_id: 'shared-store' }));
      expect(taken.statusCode).toBe(409);
      expect(taken.json().code).toBe('billing.store_of_another_organization');
      const second = await postSigned(t.app, event(org, { storefront_store_id: 'second-store' }));
      expect(second.statusCode).toBe(409);
      expect(second.json().code).toBe('billing.other_store');
      expect(await row('shared-store')).toMatchObject({ organization_id: org });
    });
  });

  describe('upsert', () => {
    it('stores the event with the OWNER, the plan lookup ids and the provider; a number store id is stored as text', async () => {
      const tenant = await createTestTenant(t.app);
      const id = Number.parseInt(tenant.ctx.organizationId.slice(0, 8), 16);
      const overrides = { storefront_store_id: id, shop_domain: 'acme.example', status: 'trialing', trial_end: '2026-01-15T00:00:00Z' };
      const body = event(tenant.ctx.organizationId, overrides);
      const response = await postSigned(t.app, body);
      const answer = { ok: true, applied: true, organization_id: tenant.ctx.organizationId, storefront_store_id: String(id), status: 'trialing' };
      expect(response.json()).toEqual(answer);
      expect(await row(String(id))).toMatchObject({
        organization_id: tenant.ctx.organizationId,
        owner_id: tenant.ctx.userId,
        plan_id: 'starter',
        billing_provider: 'storefront',
        shop_domain: 'acme.example',
        status: 'trialing',
        trial_end: new Date('2026-01-15T00:00:00Z'),
        cancel_at_period_end: false,
        metadata: { product_lookup_id: 'engage_starter', price_lookup_id: 'engage_starter_monthly' },
      });
    });

    it('updates the same row on a replay and on a later period, keeps what is not sent, and answers a stale event 200 applied false', async () => {
      const tenant = await createTestTenant(t.app);
      const org = tenant.ctx.organizationId;
      const store = `store-${org}`;
      await postSigned(t.app, event(org, { shop_domain: 'shop.example', trial_start: '2025-12-01T00:00:00Z' }));
      const first = await row(store);
      const replay = await postSigned(t.app, event(org));
      expect(replay.json()).toMatchObject({ applied: true, status: 'active' });
      const next = { plan_id: 'growth', status: 'past_due', current_period_start: '2026-02-01T00:00:00Z', cancel_at_period_end: true };
      const later = await postSigned(t.app, event(org, next));
      expect(later.json()).toMatchObject({ applied: true, status: 'past_due' });
      const stale = await postSigned(t.app, event(org, { status: 'canceled' }));
      expect(stale.statusCode).toBe(200);
      expect(stale.json()).toEqual({ ok: true, applied: false, reason: 'stale_event', organization_id: org, storefront_store_id: store, status: 'past_due' });
      const undated = await postSigned(t.app, event(org, { status: 'canceled', current_period_start: undefined }));
      expect(undated.json()).toMatchObject({ applied: false, reason: 'stale_event' });
      const stored = await row(store);
      expect(stored).toMatchObject({
        id: first.id,
        plan_id: 'growth',
        status: 'past_due',
        shop_domain: 'shop.example',
        trial_start: new Date('2025-12-01T00:00:00Z'),
        cancel_at_period_end: true,
        current_period_start: new Date('2026-02-01T00:00:00Z'),
        metadata: { product_lookup_id: 'engage_growth', price_lookup_id: 'engage_growth_monthly' },
      });
      const cleared = await postSigned(t.app, event(org, { status: 'active', current_period_start: '2026-02-01T00:00:00Z', trial_start: null }));
      expect(cleared.json()).toMatchObject({ applied: true });
      expect(await row(store)).toMatchObject({ trial_start: null, status: 'active' });
    });

    it('emits subscription.changed for each applied event, in the same transaction, and nothing for a stale one', async () => {
      const tenant = await createTestTenant(t.app);
      const org = tenant.ctx.organizationId;
      await postSigned(t.app, event(org, { current_period_start: '2026-03-01T00:00:00Z' }));
      await postSigned(t.app, event(org, { current_period_start: '2026-01-01T00:00:00Z', status: 'canceled' }));
      const events = await t.app
        .get(Database)
        .asSystem((tx) =>
          tx.query<{ type: string; payload: object }>(`SELECT type, payload FROM outbox WHERE organization_id = $1 AND source = 'billing'`, [org]),
        );
      const subscription = expect.objectContaining({ status: 'active', plan_id: 'starter' });
      expect(events).toEqual([{ type: 'subscription.changed', payload: expect.objectContaining({ created: true, subscription }) }]);
    });

    it('answers 200 to concurrent first deliveries of a new subscription (the organization key is not the upsert key)', async () => {
      const tenants = await Promise.all(Array.from({ length: 10 }, () => createTestTenant(t.app)));
      const answers = await Promise.all(
        tenants.flatMap((tenant) =>
          Array.from({ length: 10 }, (_, i) => {
            const start = `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`;
            return postSigned(t.app, event(tenant.ctx.organizationId, { current_period_start: start }));
          }),
        ),
      );
      expect(answers.map((answer) => answer.statusCode).filter((code) => code !== 200)).toEqual([]);
    });

    it('ends 500 concurrent deliveries with shuffled period starts in the state of the greatest, every answer consistent', async () => {
      const tenant = await createTestTenant(t.app);
      const org = tenant.ctx.organizationId;
      const statuses = ['trialing', 'active', 'past_due', 'canceled'];
      const day = 24 * 60 * 60 * 1000;
      const events = Array.from({ length: 500 }, (_, i) => ({ i, start: new Date(Date.UTC(2026, 0, 1) + i * day).toISOString(), status: statuses[i % 4] }));
      for (let i = events.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [events[i], events[j]] = [events[j], events[i]];
      }
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.getHttpServer().address() as { port: number };
      const answers = await Promise.all(
        events.map(async (e) => {
          const body = JSON.stringify(event(org, { current_period_start: e.start, status: e.status, storefront_store_id: `race-${org}` }));
          const response = await fetch(`http://127.0.0.1:${address.port}/functions/v1/storefront-billing-webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-billing-signature': signBody(body, SECRET) },
            body,
          });
          return { ...e, code: response.status, answer: (await response.json()) as { applied: boolean; status: string } };
        }),
      );
      expect(answers.filter((a) => a.code !== 200)).toEqual([]);
      const greatest = events.find((e) => e.i === 499)!;
      expect(await row(`race-${org}`)).toMatchObject({ status: greatest.status, current_period_start: new Date(greatest.start) });
      // The greatest is applied whenever it arrives. Applied events took the row lock one after the
      // other, each writing its event: their period starts, in that order, only ever grow, and they
      // are exactly the events answered `applied: true`.
      expect(answers.find((a) => a.i === 499)!.answer.applied).toBe(true);
      const changes = await t.app.get(Database).asSystem((tx) =>
        tx.query<{ start: string }>(
          `SELECT payload->'subscription'->>'current_period_start' AS start FROM outbox
           WHERE organization_id = $1 AND type = 'subscription.changed' ORDER BY seq`,
          [org],
        ),
      );
      const starts = changes.map((change) => change.start);
      expect(starts).toEqual([...starts].sort());
      expect([...starts].sort()).toEqual(
        answers
          .filter((a) => a.answer.applied)
          .map((a) => a.start)
          .sort(),
      );
      for (const a of answers.filter((x) => !x.answer.applied)) expect(a.answer).toMatchObject({ applied: false, reason: 'stale_event' });
    });
  });
});
