import { memberHeaders, type TestTenant } from '@engage/identity/testing';
import { type CampaignsApp, startCampaignsApp } from '../testing/campaigns-test-app';

let c: CampaignsApp;
beforeAll(async () => {
  c = await startCampaignsApp();
});
afterAll(() => c.close());

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
  c.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const createSegment = (t: TestTenant, payload: unknown) => inject('POST', '/rest/v1/segments', { ...t.session, prefer: 'return=representation' }, payload);

// Six contacts: two reachable VIPs in Cairo, one not opted in, one without a phone, one sharing the
// first one's phone, and one outside the segment.
async function audience(t: TestTenant) {
  const shared = c.newPhone();
  const a = await c.contact(t, { first_name: 'Amal', tags: ['vip'], phones: [shared], opt_in_status: true, custom_fields: { city: 'Cairo' } });
  const b = await c.contact(t, { first_name: 'Badr', tags: ['vip'], phones: [c.newPhone()], opt_in_status: true, custom_fields: { city: 'Cairo' } });
  const noOptIn = await c.contact(t, { first_name: 'Nour', tags: ['vip'], phones: [c.newPhone()], opt_in_status: false, custom_fields: { city: 'Cairo' } });
  const noPhone = await c.contact(t, { first_name: 'Omar', tags: ['vip'], opt_in_status: true, custom_fields: { city: 'Cairo' } });
  const duplicate = await sharesPhone(t, shared, { first_name: 'Dina', tags: ['vip'], opt_in_status: true, custom_fields: { city: 'Cairo' } });
  const other = await c.contact(t, { first_name: 'Zein', tags: ['vip'], phones: [c.newPhone()], opt_in_status: true, custom_fields: { city: 'Giza' } });
  return { a, b, noOptIn, noPhone, duplicate, other };
}

// The CRM gives a phone number to one contact; a second contact with it is written around that claim
// (as rows from before it), which broadcasts still send to once.
async function sharesPhone(t: TestTenant, phone: string, fields: Record<string, unknown>) {
  const contact = await c.contact(t, { ...fields, phones: [c.newPhone()] });
  await c.runtime.db.systemQuery('UPDATE contacts SET phones = ARRAY[$2] WHERE id = $1', [contact.id, phone]);
  return contact;
}

const FILTER = 'tags=cs.{vip}&custom_fields->>city=eq.Cairo&created_at=gte.2020-01-01';

describe('segments', () => {
  it('should save a segment whose filter the data API reads, and preview who it reaches', async () => {
    const t = await c.newTenant();
    const people = await audience(t);
    const created = await createSegment(t, { name: 'Cairo VIPs', filter: FILTER });
    expect(created.statusCode).toBe(201);
    const [segment] = created.json();
    expect(segment).toMatchObject({ name: 'Cairo VIPs', filter: FILTER });

    const preview = await inject('GET', `/functions/v1/campaigns/segments/${segment.id}/preview`, t.key);
    expect(preview.statusCode).toBe(200);
    const body = preview.json();
    expect(body).toMatchObject({ count: 5, reachable: 2, skipped: { no_opt_in: 1, no_phone: 1, duplicate_phone: 1 } });
    expect(body.sample.map((s: { id: string }) => s.id).sort()).toEqual([people.a.id, people.b.id].sort());

    const unsaved = await inject('POST', '/functions/v1/campaigns/audience/preview', t.session, { audience: { filter: 'custom_fields->>city=eq.Giza' } });
    expect(unsaved.statusCode).toBe(200);
    expect(unsaved.json()).toMatchObject({ count: 1, reachable: 1, sample: [{ id: people.other.id, first_name: 'Zein' }] });

    const named = await inject('POST', '/functions/v1/campaigns/audience/preview', t.session, {
      audience: { contact_ids: [people.a.id, people.duplicate.id, people.noOptIn.id] },
    });
    expect(named.json()).toMatchObject({ count: 3, reachable: 1, skipped: { no_opt_in: 1, no_phone: 0, duplicate_phone: 1 } });

    const bySegment = await inject('POST', '/functions/v1/campaigns/audience/preview', t.session, { audience: { segment_id: segment.id } });
    expect(bySegment.json()).toMatchObject({ count: 5, reachable: 2 });
  });

  it('should refuse a bad filter when saved, naming the bad part, and store nothing', async () => {
    const t = await c.newTenant();
    const cases: [unknown, RegExp][] = [
      [{ name: 'x', filter: 'shoe_size=eq.42' }, /shoe_size/],
      [{ name: 'x', filter: 'tags=like.{vip' }, /filter/],
      [{ name: 'x', filter: 'created_at=gte.not-a-date' }, /filter/],
      [{ name: 'x', filter: 'select=id' }, /select is not a filter/],
      [{ name: 'x', filter: 'order=created_at' }, /order is not a filter/],
      [{ name: 'x', filter: 42 }, /filter/],
      [{ name: 'x', filter: `first_name=eq.${'a'.repeat(4001)}` }, /at most 4000/],
      [{ name: '', filter: '' }, /name/],
      [{ name: 'y'.repeat(201), filter: '' }, /name/],
      [{ filter: 'tags=cs.{vip}' }, /name/],
      [{ name: 'x', filter: '', colour: 'red' }, /colour/],
    ];
    for (const [payload, message] of cases) {
      const res = await createSegment(t, payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().message).toMatch(message);
    }
    const list = await inject('GET', '/rest/v1/segments', t.session);
    expect(list.json()).toEqual([]);
  });

  it('should check a changed filter and keep segments to their organization', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    const [segment] = (await createSegment(t, { name: 'All', filter: '' })).json();
    const bad = await inject('PATCH', `/rest/v1/segments?id=eq.${segment.id}`, t.session, { filter: 'nope=eq.1' });
    expect(bad.statusCode).toBe(400);
    const good = await inject(
      'PATCH',
      `/rest/v1/segments?id=eq.${segment.id}`,
      { ...t.session, prefer: 'return=representation' },
      { filter: 'opt_in_status=is.true' },
    );
    expect(good.statusCode).toBe(200);
    expect(good.json()[0].filter).toBe('opt_in_status=is.true');

    expect((await inject('GET', `/functions/v1/campaigns/segments/${segment.id}/preview`, other.session)).statusCode).toBe(404);
    expect((await inject('POST', '/functions/v1/campaigns/audience/preview', other.session, { audience: { segment_id: segment.id } })).statusCode).toBe(404);
    expect((await inject('GET', '/rest/v1/segments', other.session)).json()).toEqual([]);
    const theirs = await c.contact(other, { phones: [c.newPhone()], opt_in_status: true });
    const crossed = await inject('POST', '/functions/v1/campaigns/audience/preview', t.session, { audience: { contact_ids: [theirs.id] } });
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().code).toBe('contact.not_found');
  });

  it('should let only OWNER and ADMIN write segments', async () => {
    const t = await c.newTenant();
    const agent = await memberHeaders(c.app, t, 'AGENT');
    const res = await inject('POST', '/rest/v1/segments', agent, { name: 'x', filter: '' });
    expect(res.statusCode).toBe(403);
    // Agents read them and preview.
    const [segment] = (await createSegment(t, { name: 'All', filter: '' })).json();
    expect((await inject('GET', `/functions/v1/campaigns/segments/${segment.id}/preview`, agent)).statusCode).toBe(200);
  });

  it('should answer 4xx, never 500, to bad previews', async () => {
    const t = await c.newTenant();
    const post = (payload: unknown) => inject('POST', '/functions/v1/campaigns/audience/preview', t.session, payload);
    const cases: [unknown, number][] = [
      [{}, 400],
      [{ audience: null }, 400],
      [{ audience: 'vip' }, 400],
      [{ audience: {} }, 400],
      [{ audience: { segment_id: 'nope' } }, 400],
      [{ audience: { segment_id: '8a1c6a1e-7d4c-4a44-9d55-2f6e1a1a1a1a' } }, 404],
      [{ audience: { contact_ids: [] } }, 400],
      [{ audience: { contact_ids: ['x'] } }, 400],
      [{ audience: { contact_ids: Array(10_001).fill('8a1c6a1e-7d4c-4a44-9d55-2f6e1a1a1a1a') } }, 400],
      [{ audience: { filter: 'tags=cs.{vip}', segment_id: '8a1c6a1e-7d4c-4a44-9d55-2f6e1a1a1a1a' } }, 400],
      [{ audience: { filter: 'nope=eq.1' } }, 400],
      [{ audience: { filter: 'first_name=zz.1' } }, 400],
      [{ audience: { filter: 7 } }, 400],
      [{ audience: { filter: '' }, extra: 1 }, 400],
    ];
    for (const [payload, status] of cases) {
      const res = await post(payload);
      expect({ payload: JSON.stringify(payload).slice(0, 80), status: res.statusCode }).toEqual({ payload: JSON.stringify(payload).slice(0, 80), status });
    }
    expect((await inject('GET', '/functions/v1/campaigns/segments/not-a-uuid/preview', t.session)).statusCode).toBe(400);
  });
});
