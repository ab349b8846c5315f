import { parseReadRequest } from '../parse/request.parser';
import { findTable } from '../registry';
import { embedRegistry } from '../testing/embed.fixture';
import { itemsRegistry } from '../testing/items.registry';
import { buildReadSql } from './read.sql';

const items = findTable(itemsRegistry, 'dataapi_items');
const build = (query: string, headers: Record<string, string> = {}, method = 'GET') =>
  buildReadSql(parseReadRequest(items, { method, table: 'dataapi_items', query, headers }));

describe('buildReadSql', () => {
  it('should carry every request value and key as a parameter, never in the SQL text', () => {
    const statement = build("select=evil'key:meta->>x'y&meta->>k'1=eq.v'2&or=(name.like.*O'Brien*,name.in.(a'b))&order=name&limit=5&offset=1");
    for (const text of ["evil'key", "x'y", "k'1", "v'2", "O'Brien", "a'b"]) expect(statement.text).not.toContain(text);
    expect(statement.values).toEqual(expect.arrayContaining(["evil'key", "x'y", "k'1", "v'2", "%O'Brien%", ["a'b"], 5, 1]));
  });

  it('should build one statement with the count over the same filter when asked', () => {
    const statement = build('qty=gt.1', { Prefer: 'count=exact' });
    const body = String.raw`^SELECT '\[' \|\| coalesce\(string_agg\(w\.r, \$\d+::text\) FILTER \(WHERE w\.running <= \$\d+::bigint\), ''\) \|\| '\]' AS body`;
    const rest = String.raw`, count\(\*\) AS page_count, coalesce\(max\(w\.running\), 0\) AS running`;
    const total = String.raw`, \(SELECT count\(\*\) FROM "dataapi_items" t WHERE t\."qty" > \$\d+::bigint\) AS total FROM`;
    expect(statement.text).toMatch(new RegExp(body + rest + total));
    expect(statement.text.match(/\$/g)).toHaveLength(statement.values.length + 1);
  });

  it('should build full-text search with the configuration as a parameter', () => {
    const statement = build('body=wfts(english).fat%20cat&select=id');
    expect(statement.text).toContain('to_tsvector($2::regconfig, t."body") @@ websearch_to_tsquery($2::regconfig, $3::text)');
    expect(statement.values.slice(1, 3)).toEqual(['english', 'fat cat']);
  });

  it('should build one row per page row for the cursor when not joined', () => {
    const statement = buildReadSql(parseReadRequest(items, { method: 'GET', table: 'dataapi_items', query: 'select=id', headers: {} }), 100, false);
    expect(statement.text).toMatch(
      /^SELECT CASE WHEN w\.running <= \$2::bigint THEN w\.r END AS r, w\.running FROM \(SELECT p\.r, sum\(octet_length\(p\.r\)\) OVER/,
    );
  });

  it('should skip the body on HEAD', () => {
    expect(build('', {}, 'HEAD').text).toMatch(/^SELECT count\(\*\) AS page_count FROM \(SELECT NULL AS r FROM/);
  });

  it('should merge rows wider than 50 keys from chunks', () => {
    const select = Array.from({ length: 51 }, (_, i) => `c${i}:meta->k${i}`).join(',');
    expect(build(`select=${select}`).text).toContain('::jsonb || json_build_object(');
  });

  it('should embed a to-one relation as a correlated subquery, values as parameters', () => {
    const notes = findTable(embedRegistry, 'dataapi_notes');
    const statement = buildReadSql(
      parseReadRequest(
        notes,
        { method: 'GET', table: 'dataapi_notes', query: "select=title,o:dataapi_owners!inner(name)&o.name=eq.O'Brien", headers: {} },
        embedRegistry,
      ),
    );
    expect(statement.text).toBe(
      "SELECT '[' || coalesce(string_agg(w.r, $7::text) FILTER (WHERE w.running <= $6::bigint), '') || ']' AS body, count(*) AS page_count, " +
        'coalesce(max(w.running), 0) AS running ' +
        'FROM (SELECT p.r, sum(octet_length(p.r)) OVER (ROWS UNBOUNDED PRECEDING) AS running ' +
        'FROM (SELECT json_build_object($3::text, t."title", $4::text, ' +
        '(SELECT json_build_object($2::text, e1."name") FROM "dataapi_owners" e1 WHERE e1."id" = t."owner_id" AND e1."name" = $1::text))::text AS r ' +
        'FROM "dataapi_notes" t WHERE TRUE AND EXISTS (SELECT 1 FROM "dataapi_owners" e2 WHERE e2."id" = t."owner_id" AND e2."name" = $5::text) OFFSET 0) p) w',
    );
    // The last ones are the response byte cap and the rows' separator.
    expect(statement.values).toEqual(["O'Brien", 'name', 'title', 'o', "O'Brien", Number.MAX_SAFE_INTEGER, ',']);
  });
});
