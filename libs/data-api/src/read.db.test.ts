import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { csvSafeText, type RequestContext } from '@engage/shared-kernel';
import type { ReadRequest } from './parse/plan';
import { executeRead } from './read';
import { caught } from './testing/expect-error';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';

describe('executeRead against PostgreSQL', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  let orgB: RequestContext;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    orgA = await makeOrganization(runtime, 'A');
    orgB = await makeOrganization(runtime, 'B');
    await seedItems(runtime, orgA.organizationId, ITEMS_A);
    await seedItems(runtime, orgB.organizationId, ITEMS_B);
  });
  afterAll(() => runtime.close());

  const read = (query: string, headers: ReadRequest['headers'] = {}, method = 'GET', ctx = orgA) =>
    runtime.db.inTenant(ctx, (tx) => executeRead(tx, itemsRegistry, { method, table: 'dataapi_items', query, headers }));
  const names = (body: string) => (JSON.parse(body) as { name: string }[]).map((row) => row.name);
  const sorted = (list: string[]) => [...list].sort();

  // Filters: [title, query, the names of A's rows expected, in any order].
  it.each([
    ['eq', 'name=eq.Apple', ['Apple']],
    ['neq (nulls excluded as in SQL)', 'qty=neq.5', ['Banana', 'Date', 'eggplant', 'Fig']],
    ['gt', 'qty=gt.5', ['Banana', 'eggplant']],
    ['gte', 'qty=gte.7', ['Banana', 'eggplant']],
    ['lt', 'qty=lt.5', ['Date', 'Fig']],
    ['lte', 'qty=lte.5', ['Apple', 'Date', 'Fig']],
    ['gt on numeric', 'price=gt.2', ['Cherry', 'eggplant', 'Fig']],
    ['gt on timestamptz', 'created_at=gt.2024-01-04T00:00:00Z', ['eggplant', 'Fig']],
    ['eq on uuid', `id=eq.${ITEMS_A[1].id}`, ['Banana']],
    ['like with *', 'name=like.*an*', ['Banana', 'eggplant']],
    ['like is case-sensitive', 'name=like.b*', []],
    ['ilike', 'name=ilike.B*', ['Banana']],
    ['match', 'name=match.^[A-C]', ['Apple', 'Banana', 'Cherry']],
    ['imatch', 'name=imatch.^E', ['eggplant']],
    ['in', 'name=in.(Apple,"Fig",Nope)', ['Apple', 'Fig']],
    ['not.in', 'name=not.in.(Apple,Fig)', ['Banana', 'Cherry', 'Date', 'eggplant']],
    ['in on int', 'qty=in.(0,12)', ['Banana', 'Date']],
    ['is.null', 'qty=is.null', ['Cherry']],
    ['not.is.null', 'qty=not.is.null', ['Apple', 'Banana', 'Date', 'eggplant', 'Fig']],
    ['is.not_null', 'qty=is.not_null', ['Apple', 'Banana', 'Date', 'eggplant', 'Fig']],
    ['is.true', 'active=is.true', ['Apple', 'Date', 'Fig']],
    ['is.false', 'active=is.false', ['Banana', 'eggplant']],
    ['is.unknown', 'active=is.unknown', ['Cherry']],
    ['not.is.true', 'active=not.is.true', ['Banana', 'Cherry', 'eggplant']],
    ['eq on bool', 'active=eq.true', ['Apple', 'Date', 'Fig']],
    ['isdistinct keeps nulls', 'qty=isdistinct.5', ['Banana', 'Cherry', 'Date', 'eggplant', 'Fig']],
    ['not.isdistinct', 'qty=not.isdistinct.5', ['Apple']],
    ['fts', 'body=fts.fat', ['Apple', 'Date']],
    ['fts with & and a config', 'body=fts(english).fat%20%26%20cats', ['Apple', 'Date']],
    ['fts(english) stems', 'body=fts(english).rats', ['Banana', 'Date']],
    ['not.fts (null body excluded)', 'body=not.fts.fat', ['Banana', 'eggplant', 'Fig']],
    ['plfts', 'body=plfts(english).fat+cat', ['Apple', 'Date']],
    ['phfts', 'body=phfts(english).fat%20cat', ['Apple']],
    ['wfts', 'body=wfts(english).cat%20-rat', ['Apple', 'Fig']],
    ['cs on text[]', 'tags=cs.{fruit,red}', ['Apple', 'Cherry']],
    ['cs with a quoted item', 'tags=cs.{"yellow long"}', ['Banana']],
    ['cd', 'tags=cd.{fruit,red,small}', ['Apple', 'Cherry', 'Date']],
    ['ov', 'tags=ov.{purple,small}', ['Cherry', 'eggplant']],
    ['not.cs', 'tags=not.cs.{fruit}', ['Date', 'eggplant', 'Fig']],
    ['contains alias', 'tags=contains.{red}', ['Apple', 'Cherry']],
    ['containedBy alias', 'tags=containedBy.{fruit,red}', ['Apple', 'Date']],
    ['overlaps alias', 'tags=overlaps.{vegetable}', ['eggplant']],
    ['eq on a whole array', 'tags=eq.{fruit,red}', ['Apple']],
    ['cs on jsonb', 'meta=cs.{"color":"red"}', ['Apple', 'Cherry']],
    ['cd on jsonb', 'meta=cd.{"color":"red","size":3}', ['Apple', 'Cherry', 'Date']],
    ['json path ->>', 'meta->>color=eq.red', ['Apple', 'Cherry']],
    ['json path -> compares jsonb', 'meta->size=gt.4', ['Banana', 'eggplant']],
    ['%2B reaches the array as +', 'tags=cs.{"%2B201001234567"}', ['Fig']],
    ['like(any)', 'name=like(any).{A*,B*}', ['Apple', 'Banana']],
    ['like(all)', 'name=like(all).{*a*,*n*}', ['Banana', 'eggplant']],
    ['gt(all)', 'qty=gt(all).{1,4}', ['Apple', 'Banana', 'eggplant']],
    ['eq(any)', 'qty=eq(any).{0,3}', ['Date', 'Fig']],
    ['ilike(any)', 'name=ilike(any).{apple,fig}', ['Apple', 'Fig']],
    ['not.like(any)', 'name=not.like(any).{A*,B*}', ['Cherry', 'Date', 'eggplant', 'Fig']],
    ['or', 'or=(qty.lt.1,qty.gt.10)', ['Banana', 'Date']],
    ['and', 'and=(qty.gte.3,qty.lte.7)', ['Apple', 'eggplant', 'Fig']],
    ['or with a nested and', 'or=(name.eq.Apple,and(qty.gt.6,active.is.false))', ['Apple', 'Banana', 'eggplant']],
    ['not.or', 'not.or=(qty.lt.5,qty.is.null)', ['Apple', 'Banana', 'eggplant']],
    ['or with not.and', 'or=(active.is.true,not.and(qty.gte.1,qty.lte.10))', ['Apple', 'Banana', 'Date', 'Fig']],
    ['or with arrays and in lists', 'or=(tags.cs.{vegetable},name.in.(Apple,"Fig"))', ['Apple', 'eggplant', 'Fig']],
    ['or with a quoted value and a json path', 'or=(name.eq."Apple",meta->>color.eq.yellow)', ['Apple', 'Banana']],
    ['three levels deep', 'or=(and(or(name.eq.Apple,name.eq.Banana),qty.gt.6),name.eq.Fig)', ['Banana', 'Fig']],
    ['logic tree and a filter together', 'or=(qty.lt.1,qty.gt.10)&name=like.B*', ['Banana']],
    ['repeated keys are ANDed', 'qty=gt.1&qty=lt.6', ['Apple', 'Fig']],
    ["B's rows are invisible to a filter", 'name=eq.Zucchini', []],
    ["B's rows are invisible by id", `id=eq.${ITEMS_B[0].id}`, []],
  ])('should filter with %s (%s)', async (_title, query, expected) => {
    const response = await read(query);
    expect(response.status).toBe(200);
    expect(sorted(names(response.body))).toEqual(sorted(expected));
    expect(response.headers['content-range']).toBe(expected.length ? `0-${expected.length - 1}/*` : '*/*');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  // Ordering: [query, names in order]. The database collates bytewise, so 'eggplant' sorts last.
  it.each([
    ['order=name', ['Apple', 'Banana', 'Cherry', 'Date', 'Fig', 'eggplant']],
    ['order=name.desc', ['eggplant', 'Fig', 'Date', 'Cherry', 'Banana', 'Apple']],
    ['order=qty.desc', ['Cherry', 'Banana', 'eggplant', 'Apple', 'Fig', 'Date']],
    ['order=qty.desc.nullslast', ['Banana', 'eggplant', 'Apple', 'Fig', 'Date', 'Cherry']],
    ['order=qty.asc.nullsfirst', ['Cherry', 'Date', 'Fig', 'Apple', 'eggplant', 'Banana']],
    ['order=qty', ['Date', 'Fig', 'Apple', 'eggplant', 'Banana', 'Cherry']],
    ['order=active.desc,name', ['Cherry', 'Apple', 'Date', 'Fig', 'Banana', 'eggplant']],
    ['order=meta->>color.asc.nullslast,name', ['eggplant', 'Apple', 'Cherry', 'Banana', 'Date', 'Fig']],
    ['order=created_at.desc&limit=2', ['Fig', 'eggplant']],
  ])('should order by %s', async (query, expected) => {
    expect(names((await read(query)).body)).toEqual(expected);
  });

  it.each([
    ['select=name,qty&name=eq.Apple', [{ name: 'Apple', qty: 5 }]],
    ['select=label:name,q:qty::text&name=eq.Apple', [{ label: 'Apple', q: '5' }]],
    ['select=name,meta->>color,size:meta->size&name=eq.Apple', [{ name: 'Apple', color: 'red', size: 3 }]],
    ['select=p:price::text,price&name=eq.Apple', [{ p: '1.50', price: 1.5 }]],
    ['select=tags,active,body&name=eq.Banana', [{ tags: ['fruit', 'yellow long'], active: false, body: 'A rat ate the cheese' }]],
    ['select=created_at,id::text&name=eq.Apple', [{ created_at: '2024-01-01T00:00:00+00:00', id: ITEMS_A[0].id }]],
    ['select=n:name,meta&qty=is.null', [{ n: 'Cherry', meta: { color: 'red' } }]],
  ])('should shape rows with %s', async (query, expected) => {
    expect(JSON.parse((await read(query)).body)).toEqual(expected);
  });

  it('should answer select=* with every readable column and the row organization', async () => {
    const [row] = JSON.parse((await read('select=*&name=eq.Apple')).body);
    expect(Object.keys(row)).toEqual(itemsRegistry.tables.get('dataapi_items')!.readable);
    expect(row).toMatchObject({ organization_id: orgA.organizationId, price: 1.5, tags: ['fruit', 'red'], meta: { color: 'red', size: 3 } });
  });

  it('should build rows wider than 50 keys', async () => {
    const select = Array.from({ length: 51 }, (_, i) => (i === 50 ? 'c50:qty' : `c${i}:meta->k${i}`)).join(',');
    const [row] = JSON.parse((await read(`select=${select}&name=eq.Apple`)).body);
    expect(Object.keys(row)).toHaveLength(51);
    expect(row.c50).toBe(5);
  });

  // Pagination: [query, headers, status, Content-Range, names in order].
  it.each([
    ['order=name&limit=2', {}, 200, '0-1/*', ['Apple', 'Banana']],
    ['order=name&limit=2&offset=2', {}, 200, '2-3/*', ['Cherry', 'Date']],
    ['order=name', { Range: '1-3' }, 200, '1-3/*', ['Banana', 'Cherry', 'Date']],
    ['order=name&limit=10', { Range: '5-' }, 200, '5-5/*', ['eggplant']],
    ['order=name&limit=0', {}, 200, '*/*', []],
    ['order=name&offset=10', {}, 200, '*/*', []],
    ['order=name', { Prefer: 'count=exact' }, 200, '0-5/6', ['Apple', 'Banana', 'Cherry', 'Date', 'Fig', 'eggplant']],
    ['order=name&limit=2', { Prefer: 'count=exact' }, 206, '0-1/6', ['Apple', 'Banana']],
    ['order=name', { Range: '4-10', Prefer: 'count=exact' }, 206, '4-5/6', ['Fig', 'eggplant']],
    ['order=name&offset=6', { Prefer: 'count=exact' }, 206, '*/6', []],
    ['name=eq.nope', { Prefer: 'count=exact' }, 200, '*/0', []],
    ['qty=gt.5&order=name&limit=1', { prefer: 'return=minimal, count=exact' }, 206, '0-0/2', ['Banana']],
    ['order=name&limit=1', { Prefer: 'count=estimated' }, 206, '0-0/6', ['Apple']],
  ])('should page %s with %j', async (query, headers, status, range, expected) => {
    const response = await read(query, headers);
    expect(response.status).toBe(status);
    expect(response.headers['content-range']).toBe(range);
    expect(names(response.body)).toEqual(expected);
  });

  it('should leave null-valued keys out with nulls=stripped (supabase-js stripNulls)', async () => {
    const array = await read('select=name,qty,active&name=in.(Cherry,Apple)&order=name', { accept: 'application/vnd.pgrst.array+json;nulls=stripped' });
    expect(JSON.parse(array.body)).toEqual([{ name: 'Apple', qty: 5, active: true }, { name: 'Cherry' }]);
    expect(array.headers['content-type']).toBe('application/vnd.pgrst.array+json; nulls=stripped; charset=utf-8');
    const object = await read('select=name,qty&name=eq.Cherry', { accept: 'application/vnd.pgrst.object+json; nulls=stripped' });
    expect(JSON.parse(object.body)).toEqual({ name: 'Cherry' });
    expect(object.headers['content-type']).toBe('application/vnd.pgrst.object+json; nulls=stripped; charset=utf-8');
    expect(JSON.parse((await read('select=name,qty&name=eq.Cherry', { accept: 'application/json;nulls=stripped' })).body)).toEqual([
      { name: 'Cherry', qty: null },
    ]);
  });

  it('should accept the public profile only (Accept-Profile, as supabase-js sends it)', async () => {
    expect(names((await read('name=eq.Apple', { 'accept-profile': 'public' })).body)).toEqual(['Apple']);
    expect(await caught(() => read('', { 'Accept-Profile': 'crm' }))).toMatchObject({
      code: 'PGRST106',
      kind: 'not_acceptable',
      message: 'Invalid schema: crm',
    });
  });

  it('should refuse unknown preferences under handling=strict and echo it', async () => {
    expect(await caught(() => read('', { prefer: 'handling=strict, count=sometimes' }))).toMatchObject({
      code: 'PGRST122',
      details: 'Invalid preferences: count=sometimes',
    });
    expect((await read('', { prefer: 'handling=strict, count=exact' })).headers['preference-applied']).toBe('count=exact, handling=strict');
  });

  it('should echo the count preference it applied', async () => {
    expect((await read('', { Prefer: 'count=exact' })).headers['preference-applied']).toBe('count=exact');
    expect((await read('')).headers['preference-applied']).toBeUndefined();
  });

  it('should refuse an offset past the counted total with 416 PGRST103', async () => {
    const error = await caught(() => read('offset=10', { Prefer: 'count=exact' }));
    expect(error).toMatchObject({
      code: 'PGRST103',
      message: 'Requested range not satisfiable',
      kind: 'range_not_satisfiable',
      details: 'An offset of 10 was requested, but there are only 6 rows.',
    });
  });

  it('should answer a singular request with the bare object', async () => {
    const response = await read('select=name,qty&name=eq.Fig', { Accept: 'application/vnd.pgrst.object+json' });
    expect(response).toEqual({
      status: 200,
      body: '{"name" : "Fig", "qty" : 3}',
      headers: { 'content-type': 'application/vnd.pgrst.object+json; charset=utf-8', 'content-range': '0-0/*' },
    });
  });

  it.each([
    ['name=eq.nope', 'The result contains 0 rows'],
    ['name=eq.Zucchini', 'The result contains 0 rows'],
    ['', 'The result contains 6 rows'],
  ])('should refuse a singular request for %s with 406 PGRST116', async (query, details) => {
    const error = await caught(() => read(query, { Accept: 'application/vnd.pgrst.object+json' }));
    expect(error).toMatchObject({ code: 'PGRST116', message: 'Cannot coerce the result to a single JSON object', kind: 'not_acceptable', details });
  });

  it('should answer CSV with a header row and PostgreSQL text forms', async () => {
    const response = await read('select=name,qty,tags,active,n:meta->>color&order=name&limit=3', { Accept: 'text/csv' });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body).toBe(
      'name,qty,tags,active,n\nApple,5,"{fruit,red}",t,red\nBanana,12,"{fruit,""yellow long""}",f,yellow\nCherry,,"{fruit,red,small}",,red',
    );
    expect(response.headers['content-range']).toBe('0-2/*');
  });

  describe("CSV formula cells (OWASP CSV injection, the CRM exports' rule)", () => {
    let orgC: RequestContext;
    const attacks = ['=HYPERLINK("http://evil.example","x")', '+SUM(1,2)', '@SUM(1)', "-2+3+cmd|' /C calc'!A0", '\tTAB', '\rCR'];
    beforeAll(async () => {
      orgC = await makeOrganization(runtime, 'C');
      await runtime.db.asSystem(async (tx) => {
        for (const [i, name] of attacks.entries()) {
          await tx.query(`INSERT INTO dataapi_items (organization_id, name, qty, body, created_at) VALUES ($1, $2, $3, $4, $5)`, [
            orgC.organizationId,
            name,
            -5 - i,
            i === 0 ? '+15551234567' : i === 1 ? '-1.5e+20' : 'a=b',
            `2024-03-0${i + 1}T00:00:00Z`,
          ]);
        }
      });
    });
    const csv = async (query: string) => (await read(query, { Accept: 'text/csv' }, 'GET', orgC)).body;

    it("should prefix cells that start with = + - @, a tab or a carriage return with ', quoting as before", async () => {
      expect(await csv('select=name&order=created_at')).toBe(
        ['name', '"\'=HYPERLINK(""http://evil.example"",""x"")"', '"\'+SUM(1,2)"', '"\'@SUM(1)"', "\"'-2+3+cmd|' /C calc'!A0\"", '"\'\tTAB"', '"\'\rCR"'].join(
          '\n',
        ),
      );
    });

    it('should leave plain numbers, phones and formula characters after the start as they are', async () => {
      expect(await csv('select=qty,body&order=created_at&limit=3')).toBe('qty,body\n-5,+15551234567\n-6,-1.5e+20\n-7,a=b');
    });

    it('should escape values read through a JSON path, a cast and an alias, and NULLs stay empty', async () => {
      await runtime.db.asSystem((tx) =>
        tx.query(`UPDATE dataapi_items SET meta = '{"f": "=1+1"}', tags = '{=x}' WHERE organization_id = $1 AND qty = -5`, [orgC.organizationId]),
      );
      expect(await csv('select=f:meta->>f,tags,active,n:name::text&qty=eq.-5')).toBe(
        'f,tags,active,n\n\'=1+1,{=x},,"\'=HYPERLINK(""http://evil.example"",""x"")"',
      );
    });

    it('should write each text as the CRM export rule (csvSafeText) would, once unquoted', async () => {
      const values = ['+1; +2', '-1.5', '1e5', '-', '=', '@', ' =x', '', 'a\\b', '"=x"', '-5 days', '+15551234567\n=1', '\u00a0=x', '=\t'];
      const tenant = await makeOrganization(runtime, 'D');
      await runtime.db.asSystem(async (tx) => {
        for (const [i, name] of values.entries())
          await tx.query(`INSERT INTO dataapi_items (organization_id, name, qty) VALUES ($1, $2, $3)`, [tenant.organizationId, name, i]);
      });
      const body = (await read('select=name&order=qty', { Accept: 'text/csv' }, 'GET', tenant)).body;
      // PostgreSQL's record quoting: "..." with quotes and backslashes doubled.
      const cells = [...body.slice('name\n'.length).matchAll(/("(?:[^"\\]|""|\\\\)*"|[^\n]*)(?:\n|$)/g)].map(([, cell]) => cell).slice(0, values.length);
      const unquoted = cells.map((cell) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"').replace(/\\\\/g, '\\') : cell));
      expect(unquoted).toEqual(values.map(csvSafeText));
    });

    it('should escape a header cell (an alias) as the CRM does', async () => {
      expect(await csv('select=%40s:name,%2Bx:qty,%3Dy:body&qty=eq.-5')).toBe('\'@s,\'+x,\'=y\n"\'=HYPERLINK(""http://evil.example"",""x"")",-5,+15551234567');
    });
  });

  it('should answer an empty CSV with the header row only', async () => {
    expect((await read('select=name,qty&name=eq.nope', { Accept: 'text/csv' })).body).toBe('name,qty');
  });

  it('should answer HEAD with the headers of GET and no body', async () => {
    expect(await read('', { Prefer: 'count=exact' }, 'HEAD')).toEqual({
      status: 200,
      body: '',
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-range': '0-5/6', 'preference-applied': 'count=exact' },
    });
    const partial = await read('limit=1', { Prefer: 'count=exact', Range: '3-4' }, 'HEAD');
    expect(partial).toMatchObject({ status: 206, body: '', headers: { 'content-range': '0-0/6' } });
  });

  it.each([
    ['foo=eq.1', '42703', 400],
    ['select=id,foo', '42703', 400],
    ['order=foo', '42703', 400],
    ['id=eq.not-a-uuid', '22P02', 400],
    ['qty=eq.many', '22P02', 400],
    ['tags=cs.{"+201001234567"}', '22P02', 400],
    ['qty=zz.1', 'PGRST100', 400],
    ['or=()', 'PGRST100', 400],
    ['limit=-1', 'PGRST103', 416],
  ])('should refuse %s with %s before running SQL', async (query, code, status) => {
    expect(await caught(() => read(query))).toMatchObject({ code, kind: status === 416 ? 'range_not_satisfiable' : 'validation' });
  });

  it('should hint at %2B when a + became a space in an array item', async () => {
    expect((await caught(() => read('tags=cs.{"+201001234567"}'))).hint).toBe('A "+" in the query string means a space: send "+" as %2B');
  });

  it('should answer an unknown table with 404 PGRST205', async () => {
    const error = await caught(() =>
      runtime.db.inTenant(orgA, (tx) => executeRead(tx, itemsRegistry, { method: 'GET', table: 'nope', query: '', headers: {} })),
    );
    expect(error).toMatchObject({ kind: 'not_found', code: 'PGRST205', message: "Could not find the table 'public.nope' in the schema cache" });
  });

  it("should never show organization B's rows to A, and the reverse", async () => {
    const seenByA = JSON.parse((await read('select=id,organization_id')).body) as { id: string; organization_id: string }[];
    expect(seenByA.map((row) => row.id).sort()).toEqual(ITEMS_A.map((item) => item.id).sort());
    expect(seenByA.every((row) => row.organization_id === orgA.organizationId)).toBe(true);
    const seenByB = await read('order=name', { Prefer: 'count=exact' }, 'GET', orgB);
    expect(names(seenByB.body)).toEqual(['Apple', 'Zucchini']);
    expect(seenByB.headers['content-range']).toBe('0-1/2');
    expect((await read(`or=(id.eq.${ITEMS_B[0].id},organization_id.eq.${orgB.organizationId})`)).body).toBe('[]');
  });

  it('should show nothing without an organization', async () => {
    const response = await runtime.db.withoutTenant((tx) =>
      executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query: '', headers: { Prefer: 'count=exact' } }),
    );
    expect(response).toMatchObject({ status: 200, body: '[]', headers: { 'content-range': '*/0' } });
  });
});
