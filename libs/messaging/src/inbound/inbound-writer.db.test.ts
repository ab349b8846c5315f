import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { inboundChannel, startInboundTestApp } from '../testing/inbound-test-app';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

// No inbound worker runs: stored events stay as the receiver wrote them.
beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

const channel = () => inboundChannel(app);
const post = (channelId: string, token: string, payload: object) =>
  app.inject({ method: 'POST', url: `/functions/v1/chat-lite-webhook/${channelId}`, headers: { 'x-channel-token': token }, payload });
const stored = (organizationId: string) =>
  runtime.db.systemQuery<{ id: string; text: string; tx: string }>(
    "SELECT id::text, payload->>'text' AS text, xmin::text AS tx FROM inbound_events WHERE organization_id = $1 ORDER BY id",
    [organizationId],
  );

describe('inbound receiver under concurrent requests', () => {
  it('should answer each of many simultaneous requests for itself, storing the accepted ones in grouped statements', async () => {
    const [one, two, inactive] = [await channel(), await channel(), await channel()];
    await runtime.db.systemQuery('UPDATE channel_accounts SET is_active = false WHERE id = $1', [inactive.id]);
    const sent = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const text = `m${i}`;
        if (i % 10 === 3) return post(one.id, two.token, { type: 'message', id: text, from: '201005550301', text }); // another channel's token
        if (i % 10 === 5) return post(inactive.id, inactive.token, { type: 'message', id: text, from: '201005550301', text });
        if (i % 10 === 7) return post('00000000-0000-4000-8000-000000000000', one.token, { type: 'message', id: text, from: '201005550301', text });
        if (i % 10 === 9) return post(one.id, one.token, { type: 'message', id: text, text }); // no sender
        return post(i % 2 === 0 ? one.id : two.id, i % 2 === 0 ? one.token : two.token, { type: 'message', id: text, from: '201005550301', text });
      }),
    );
    sent.forEach((res, i) => {
      const expected = { 3: 401, 5: 403, 7: 401, 9: 400 }[i % 10] ?? 200;
      expect({ i, status: res.statusCode }).toEqual({ i, status: expected });
    });
    const accepted = sent.map((res, i) => ({ res, i })).filter(({ res }) => res.statusCode === 200);
    const rows = [...(await stored(one.organizationId)), ...(await stored(two.organizationId))];
    // Every acknowledged request stored once, under the id it was answered with, on its own channel.
    expect(rows.map((r) => r.text).sort()).toEqual(accepted.map(({ i }) => `m${i}`).sort());
    for (const { res, i } of accepted) expect(rows.find((r) => r.id === res.json().id)?.text).toBe(`m${i}`);
    expect((await stored(one.organizationId)).every((r) => Number(r.text.slice(1)) % 2 === 0)).toBe(true);
    expect(await stored(inactive.organizationId)).toEqual([]);
    // The requests arrived together: some shared a statement (one transaction id for several rows).
    const perStatement = new Map<string, number>();
    for (const r of rows) perStatement.set(r.tx, (perStatement.get(r.tx) ?? 0) + 1);
    expect(Math.max(...perStatement.values())).toBeGreaterThan(1);
  });

  it('should still store the others of a group when the database refuses one request', async () => {
    const ch = await channel();
    const guard = `inbound_refuse_${ch.organizationId.replace(/-/g, '')}`;
    await runtime.db.systemQuery(
      `ALTER TABLE inbound_events ADD CONSTRAINT ${guard} CHECK (organization_id <> '${ch.organizationId}' OR payload->>'text' <> 'refused')`,
    );
    let sent;
    try {
      sent = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(ch.id, ch.token, { type: 'message', id: `r${i}`, from: '201005550302', text: i === 10 ? 'refused' : `r${i}` }),
        ),
      );
    } finally {
      await runtime.db.systemQuery(`ALTER TABLE inbound_events DROP CONSTRAINT ${guard}`);
    }
    const statuses = sent.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    // The refused one gets the database's reason as a 400, alone.
    expect({ status: statuses[10], code: sent[10].json().code }).toEqual({ status: 400, code: 'check_violation' });
    expect((await stored(ch.organizationId)).map((r) => r.text).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `r${i}`)
        .filter((t) => t !== 'r10')
        .sort(),
    );
  });

  it('should refuse a NUL character with a 400 naming the field', async () => {
    const ch = await channel();
    const res = await post(ch.id, ch.token, { type: 'message', id: 'n1', from: '201005550303', text: 'a\u0000b' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_characters', error: 'text contains a NUL character (U+0000), which cannot be stored' });
  });
});
