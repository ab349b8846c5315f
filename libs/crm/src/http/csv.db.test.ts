import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { parse } from 'csv-parse/sync';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { OrgGate, type PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { CompanyService } from '../application/company.service';
import { ContactService } from '../application/contact.service';
import { CrmModule } from '../crm.module';
import { crmMigrations } from '../index';

// Row i of a generated contacts file: some rows repeat an earlier phone (another written form)
// or email (another case), some carry a bad phone.
const digits = (i: number) => `10${String(10_000_000 + i).slice(-8)}`;
const phone = (i: number) => `+20 ${digits(i).slice(0, 3)} ${digits(i).slice(3, 6)} ${digits(i).slice(6)}`;
const isBad = (i: number) => i % 25 === 24;
const isPhoneRepeat = (i: number) => !isBad(i) && i % 10 === 9;
const isEmailRepeat = (i: number) => i % 40 === 20;
function contactRow(i: number): string {
  if (isBad(i)) return `Bad${i},,12345,bad${i}@example.com,`;
  if (isPhoneRepeat(i)) return `Again${i},,0020${digits(i - 1)},,repeat`;
  if (isEmailRepeat(i)) return `Mail${i},,,PERSON${i - 2}@EXAMPLE.COM,`;
  return `Name${i},"Last, ""the"" ${i}",${phone(i)},person${i}@example.com,a;b`;
}

describe('CSV import and export of contacts and companies', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startTestApp([CrmModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  const upload = (path: string, t: TestTenant | undefined, csv: string, type = 'text/csv') =>
    app.inject({ method: 'POST', url: `/functions/v1/${path}`, headers: { ...(t?.key ?? {}), 'content-type': type }, payload: csv });
  const get = (url: string, t: TestTenant | undefined) => app.inject({ method: 'GET', url, headers: t?.key ?? {} });
  const count = (t: TestTenant, table: string) =>
    runtime.db.inTenant(t.ctx, async (tx) => (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

  it('should upsert a few thousand rows by phone or email, without duplicates, reporting bad rows by line', async () => {
    const t = await createTestTenant(app);
    const existing = await app.get(ContactService).create(t.ctx, { first_name: 'Before', phones: [phone(3)], emails: ['keep@example.com'] });
    const rows = 2500;
    const csv = `First Name,last_name,phone,email,tags\n${Array.from({ length: rows }, (_, i) => contactRow(i)).join('\n')}\n`;
    const res = await upload('contacts/import', t, csv);
    expect(res.statusCode).toBe(201);
    const failed = Array.from({ length: rows }, (_, i) => i).filter(isBad);
    const updated = Array.from({ length: rows }, (_, i) => i).filter((i) => isPhoneRepeat(i) || isEmailRepeat(i) || i === 3).length;
    const job = res.json();
    expect(job).toMatchObject({
      status: 'completed',
      entity: 'contacts',
      processed: rows,
      failed: failed.length,
      updated,
      created: rows - failed.length - updated,
    });
    expect(job.errors).toHaveLength(100);
    expect(job.errors[0]).toEqual({ line: 26, error: '"12345" is not a valid phone number', code: 'contact.invalid_phone' });
    expect(job.errors.map((e: { line: number }) => e.line)).toEqual(failed.slice(0, 100).map((i) => i + 2));
    expect(await count(t, 'contacts')).toBe(rows - failed.length - updated + 1);
    // The earlier contact kept its email and took the row's; a repeated phone updated its row's contact.
    const before = await app.get(ContactService).get(t.ctx, existing.id);
    expect(before).toMatchObject({ first_name: 'Name3', last_name: 'Last, "the" 3', emails: ['keep@example.com', 'person3@example.com'], tags: ['a', 'b'] });
    const again = await app.get(ContactService).findByPhone(t.ctx, phone(8));
    expect(again).toMatchObject({ first_name: 'Again9', tags: ['a', 'b', 'repeat'], emails: ['person8@example.com'] });
    expect((await get(`/functions/v1/imports/${job.id}`, t)).json()).toEqual(job);
  });

  it('should emit an event per imported contact and report by line a row whose phones belong to two contacts', async () => {
    const t = await createTestTenant(app);
    const contacts = app.get(ContactService);
    const first = await contacts.create(t.ctx, { first_name: 'First', phones: ['+201001110001'] });
    await contacts.create(t.ctx, { first_name: 'Second', phones: ['+201001110002'] });
    const csv = [
      'first_name,phones,emails,assignee_id',
      'Again,00201001110001,first@example.com,',
      `New,+201001110003,new@example.com,${t.ctx.userId}`,
      'Both,+201001110001;+201001110002,,',
      'Renamed,,,',
      ',+201001110009,,',
    ].join('\n');
    const job = (await upload('contacts/import', t, `${csv}\n`)).json();
    expect(job).toMatchObject({ status: 'completed', processed: 5, created: 2, updated: 1, failed: 2 });
    expect(job.errors).toEqual([
      { line: 4, error: 'another contact already has the phone +201001110002', code: 'contact.duplicate_phone' },
      { line: 6, error: 'first_name is required', code: 'contact.invalid_field' },
    ]);
    expect(await contacts.get(t.ctx, first.id)).toMatchObject({ first_name: 'Again', phones: ['+201001110001'], emails: ['first@example.com'] });
    const events = await runtime.db.asSystem((tx) =>
      tx.query<{ type: string; payload: { contact: { first_name: string } } }>(
        `SELECT type, payload FROM outbox WHERE organization_id = $1 AND type LIKE 'contact.%' ORDER BY seq`,
        [t.ctx.organizationId],
      ),
    );
    expect(
      events
        .slice(2)
        .map((e) => `${e.type} ${e.payload.contact.first_name}`)
        .sort(),
    ).toEqual(['contact.assigned New', 'contact.created New', 'contact.created Renamed', 'contact.updated Again']);
  });

  it('should process rows while the upload is still arriving, with progress on the job', async () => {
    const t = await createTestTenant(app);
    if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    let answered: (answer: { status: number; body: string }) => void = () => undefined;
    const done = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve));
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/functions/v1/contacts/import', headers: { ...t.key, 'content-type': 'text/csv' } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => answered({ status: res.statusCode ?? 0, body }));
      },
    );
    req.write(`first_name,phones\n${Array.from({ length: 1200 }, (_, i) => `P${i},${phone(i)}`).join('\n')}\n`);
    // Two batches commit and show on the job before the body has ended.
    let running: { id: string; status: string; processed: number } | undefined;
    for (let attempt = 0; attempt < 400 && !(running && running.processed >= 1000); attempt++) {
      await new Promise((r) => setTimeout(r, 25));
      running = (await get('/functions/v1/imports', t)).json().imports[0];
    }
    expect(running).toMatchObject({ status: 'running', processed: 1000 });
    req.end(`${Array.from({ length: 300 }, (_, i) => `Q${i},${phone(5000 + i)}`).join('\n')}\n`);
    const answer = await done;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ id: running!.id, status: 'completed', processed: 1500, created: 1500 });
  });

  it('should finish the import when the client disconnects after sending the whole file, and fail it with the reason when the upload breaks off', async () => {
    const t = await createTestTenant(app);
    if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const send = (body: string, end: boolean) =>
      new Promise<void>((resolve) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/functions/v1/contacts/import',
          headers: { ...t.key, 'content-type': 'text/csv' },
        });
        req.on('error', () => undefined);
        const hangUp = () => {
          req.destroy();
          resolve();
        };
        if (end) req.end(body, hangUp);
        else req.write(body, () => setTimeout(hangUp, 200));
      });
    const waitForJob = async (count: number) => {
      let jobs: { status: string; processed: number; error: string | null }[] = [];
      for (let attempt = 0; attempt < 400; attempt++) {
        jobs = (await get('/functions/v1/imports', t)).json().imports;
        if (jobs.length >= count && jobs[0].status !== 'running') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      return jobs[0];
    };
    // Enough rows that the body is still being read when the client goes away.
    await send(`first_name,phones\n${Array.from({ length: 3000 }, (_, i) => `P${i},${phone(i)}`).join('\n')}\n`, true);
    expect(await waitForJob(1)).toMatchObject({ status: 'completed', processed: 3000, error: null });
    await send(`first_name,phones\n${Array.from({ length: 700 }, (_, i) => `Q${i},${phone(5000 + i)}`).join('\n')}\nCut`, false);
    const broken = await waitForJob(2);
    expect(broken).toMatchObject({ status: 'failed', error: expect.stringContaining('the upload broke off') });
    expect(broken.processed).toBeLessThan(701);
  });

  it('should import the file field of a multipart/form-data upload, streamed over a real connection', async () => {
    const t = await createTestTenant(app);
    if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const boundary = '----engage-test-boundary';
    const part = (name: string, extra = '') => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n`;
    const rows = Array.from({ length: 1200 }, (_, i) => `M${i},${phone(7000 + i)}`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/functions/v1/contacts/import',
          headers: { ...t.key, 'content-type': `multipart/form-data; boundary=${boundary}` },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // A field before the file, then the file in several writes.
      req.write(`${part('note')}\r\nfrom the test\r\n${part('file', '; filename="contacts.csv"')}Content-Type: text/csv\r\n\r\nfirst_name,phones\n`);
      req.write(`${rows.slice(0, 600).join('\n')}\n`);
      req.end(`${rows.slice(600).join('\n')}\nBad,123\r\n--${boundary}--\r\n`);
    });
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({
      status: 'completed',
      processed: 1201,
      created: 1200,
      failed: 1,
      errors: [{ line: 1202, code: 'contact.invalid_phone' }],
    });
    expect(await count(t, 'contacts')).toBe(1200);

    const multipart = (body: string, tenant: TestTenant | null = t, path = 'contacts/import') =>
      app.inject({
        method: 'POST',
        url: `/functions/v1/${path}`,
        headers: { ...(tenant?.key ?? {}), 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: body,
      });
    const misnamed = await multipart(`${part('upload', '; filename="c.csv"')}\r\nfirst_name\nX\r\n--${boundary}--\r\n`);
    expect(misnamed.statusCode).toBe(400);
    expect(misnamed.json()).toMatchObject({ code: 'import.no_file', error: expect.stringContaining('"upload"') });
    expect((await multipart(`${part('note')}\r\nno file here\r\n--${boundary}--\r\n`)).json()).toMatchObject({ code: 'import.no_file' });
    expect(
      (await multipart(`${part('file', '; filename="c.csv"')}\r\nfirst_name,phonez\nX,1\r\n--${boundary}--\r\n`, t, 'companies/import')).json(),
    ).toMatchObject({ code: 'import.unknown_column' });
    expect((await multipart(`${part('file', '; filename="c.csv"')}\r\nfirst_name\nX\r\n--${boundary}--\r\n`, null)).statusCode).toBe(401);
    // Other routes keep their JSON bodies: a multipart body there is a 4xx, never a 500.
    const elsewhere = await multipart(`${part('searchTerm')}\r\nAcme\r\n--${boundary}--\r\n`, t, 'search-companies');
    expect(elsewhere.statusCode).toBeGreaterThanOrEqual(400);
    expect(elsewhere.statusCode).toBeLessThan(500);
    expect(await count(t, 'contacts')).toBe(1200);
  });

  // Issue 33: a multipart body sent whole but without its closing boundary left the import waiting
  // for ever (the parser had destroyed the file part before the import read it), holding its gate
  // slot after the client had gone.
  it('should answer a multipart upload that ends before its closing boundary 400, also after its client went, and give the slot back', async () => {
    const t = await createTestTenant(app);
    if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const boundary = 'cut-off';
    const post = (body: string, hangUp: boolean) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(received));
        const head = ['POST /functions/v1/contacts/import HTTP/1.1', 'Host: x', `X-API-Key: ${t.key['x-api-key']}`];
        head.push(`Content-Type: multipart/form-data; boundary=${boundary}`, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close');
        socket.write(`${head.join('\r\n')}\r\n\r\n${body}`, () => (hangUp ? socket.destroy() : undefined));
      });
    const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\nfirst_name\nAda\nGrace\n`;
    for (const body of [file, `${file}\r\n--${boundary}`, `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhal`]) {
      const answer = await post(body, false);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 'import.invalid_multipart',
        error: expect.stringContaining('ended before its closing boundary'),
      });
    }
    // Four clients gone once their (cut-off) bodies were sent: each import ends, and its slot comes back.
    await Promise.all(Array.from({ length: 4 }, () => post(file, true)));
    const gate = app.get(OrgGate);
    for (let tries = 0; tries < 200 && gate.running(t.ctx.organizationId) > 0; tries++) await new Promise((r) => setTimeout(r, 10));
    expect(gate.running(t.ctx.organizationId)).toBe(0);
    const jobs = (await get('/functions/v1/imports', t)).json().imports as { status: string }[];
    expect(jobs.every((job) => job.status === 'failed')).toBe(true);
    expect(await count(t, 'contacts')).toBe(0);
    const closed = `${file}\r\n--${boundary}--\r\n`;
    expect(await post(closed, false)).toMatch(/^HTTP\/1\.1 201 /);
    expect(await count(t, 'contacts')).toBe(2);
  });

  it('should stop with a clear 400 on a bad header or malformed CSV and mark the job failed', async () => {
    const t = await createTestTenant(app);
    const header = await upload('contacts/import', t, 'first_name,phonez\nA,+201001234567\n');
    expect(header.statusCode).toBe(400);
    expect(header.json()).toMatchObject({
      code: 'import.unknown_column',
      error: expect.stringContaining('unknown contacts column phonez'),
      hint: expect.stringMatching(/GET \/functions\/v1\/imports\/[0-9a-f-]{36}/),
    });
    const malformed = await upload('contacts/import', t, 'first_name\n"A\n');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('import.invalid_csv');
    // A quote opened in the middle of a field is the parser's INVALID_OPENING_QUOTE, not CSV_-prefixed.
    const midQuote = await upload('contacts/import', t, 'first_name,last_name\nA,B "C"\n');
    expect(midQuote.statusCode).toBe(400);
    expect(midQuote.json()).toMatchObject({ code: 'import.invalid_csv', error: expect.stringContaining('line 2') });
    expect((await upload('contacts/import', t, '')).statusCode).toBe(400);
    expect((await upload('contacts/import', t, JSON.stringify({ first_name: 'A' }), 'application/json')).statusCode).toBe(400);
    expect((await upload('contacts/import', t, 'first_name,color\nA,red\n', 'text/csv; charset=utf-8')).json().code).toBe('import.unknown_column');
    expect((await upload('contacts/import', t, 'first_name,first_name\nA,B\n')).statusCode).toBe(400);
    const jobs = (await get('/functions/v1/imports', t)).json().imports;
    expect(jobs.map((j: { status: string }) => j.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'failed']);
    expect(await count(t, 'contacts')).toBe(0);
    expect((await upload('contacts/import', undefined, 'first_name\nA\n')).statusCode).toBe(401);
  });

  it('should import companies matched by phone, email or name', async () => {
    const t = await createTestTenant(app);
    await app.get(CompanyService).create(t.ctx, { name: 'Acme', emails: ['sales@acme.example'] });
    const csv =
      'name,website,phones,emails,annual_revenue,tags\nACME,acme.example,,,1000,vip\nGlobex,globex.example,+201001234567,,,\nGlobex Egypt,,00201001234567,,,eg\nInitech,,,,lots,\n';
    const job = (await upload('companies/import', t, csv)).json();
    expect(job).toMatchObject({ status: 'completed', processed: 4, created: 1, updated: 2, failed: 1, errors: [{ line: 5, code: 'import.invalid_cell' }] });
    // Filled cells overwrite (the name too), lists are unioned, empty cells keep what was there.
    const exported = parse((await get('/functions/v1/companies/export?columns=name,website,phones,annual_revenue,tags', t)).body, { columns: true });
    expect(exported).toEqual([
      { name: 'ACME', website: 'acme.example', phones: '', annual_revenue: '1000', tags: 'vip' },
      { name: 'Globex Egypt', website: 'globex.example', phones: '+201001234567', annual_revenue: '', tags: 'eg' },
    ]);
  });

  it('should export the chosen columns with proper quoting, never another organization’s rows, and import its own export', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    await app.get(ContactService).create(a.ctx, {
      first_name: 'Zed, "Z"',
      description: 'line one\nline two',
      phones: ['+201001234567', '+201001234568'],
      tags: ['x'],
      opt_in_status: true,
      custom_fields: { plan: 'gold' },
    });
    await app.get(ContactService).create(a.ctx, { first_name: ' padded' });
    await app.get(ContactService).create(b.ctx, { first_name: 'Secret', phones: ['+201009999999'] });
    const res = await get('/functions/v1/contacts/export?columns=first_name,phones,description,opt_in_status,custom_fields,tags', a);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body.split('\r\n')[0]).toBe('first_name,phones,description,opt_in_status,custom_fields,tags');
    expect(res.body).toContain('"Zed, ""Z""",+201001234567; +201001234568,"line one\nline two",true,"{""plan"":""gold""}",x\r\n');
    expect(res.body).not.toContain('Secret');
    expect(parse(res.body, { columns: true })).toHaveLength(2);
    const all = await get('/functions/v1/contacts/export', a);
    expect(all.body.split('\r\n')[0]).toBe(
      'id,first_name,last_name,phones,emails,tags,description,company_id,assignee_id,source,opt_in_status,custom_fields,created_at,updated_at',
    );
    // Re-importing the export matches every row by phone: nothing is duplicated.
    const again = (await upload('contacts/import', a, all.body)).json();
    expect(again).toMatchObject({ status: 'completed', processed: 2, created: 1, updated: 1, failed: 0 });
    for (const bad of ['columns=first_name,password', 'columns=first_name,first_name'])
      expect((await get(`/functions/v1/contacts/export?${bad}`, a)).statusCode).toBe(400);
    expect((await get('/functions/v1/contacts/export', undefined)).statusCode).toBe(401);
  });

  it('should export cells a spreadsheet would run as formulas as text, and import is unchanged', async () => {
    const t = await createTestTenant(app);
    await app
      .get(ContactService)
      .create(t.ctx, { first_name: '=HYPERLINK("http://evil.example","click")', last_name: '@SUM(A1)', description: '-1+cmd', phones: ['+201001234567'] });
    const res = await get('/functions/v1/contacts/export?columns=first_name,last_name,description,phones', t);
    expect(res.body.split('\r\n')[1]).toBe(`"'=HYPERLINK(""http://evil.example"",""click"")",'@SUM(A1),'-1+cmd,+201001234567`);
    const [row] = parse(res.body, { columns: true }) as Record<string, string>[];
    expect(row.first_name.startsWith("'=")).toBe(true);
    expect(row.phones).toBe('+201001234567');
  });

  it('should page through more rows than one export page in order', async () => {
    const t = await createTestTenant(app);
    const csv = `first_name\n${Array.from({ length: 1100 }, (_, i) => `N${i}`).join('\n')}\n`;
    expect((await upload('contacts/import', t, csv)).json()).toMatchObject({ created: 1100 });
    const names = parse((await get('/functions/v1/contacts/export?columns=id,first_name', t)).body, { columns: true }) as { id: string }[];
    expect(names).toHaveLength(1100);
    expect(new Set(names.map((n) => n.id)).size).toBe(1100);
  });

  it('should accept text/plain and a charset parameter, and report links into another organization per row', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = await app.get(CompanyService).create(b.ctx, { name: 'Theirs' });
    const plain = (await upload('contacts/import', a, `first_name,company_id,assignee_id\nOk,,\nX,${theirs.id},\nY,,${b.ctx.userId}\n`, 'text/plain')).json();
    expect(plain).toMatchObject({
      status: 'completed',
      created: 1,
      failed: 2,
      errors: [
        { line: 3, code: 'company.not_found' },
        { line: 4, code: 'contact.invalid_assignee' },
      ],
    });
    // Lines are where a row starts, counting blank lines and quoted line breaks.
    const lines = (await upload('contacts/import', a, 'first_name,description,phones\n\n"A","two\nlines",12\n\nB,,34\n')).json();
    expect(lines.errors.map((e: { line: number }) => e.line)).toEqual([3, 6]);
    const charset = (await upload('contacts/import', a, 'first_name\nCharset\n', 'text/csv; charset=utf-8')).json();
    expect(charset).toMatchObject({ status: 'completed', created: 1 });
    expect(await count(b, 'contacts')).toBe(0);
  });

  it('should answer 404 for another organization’s import and 400 for a bad id', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const job = (await upload('contacts/import', b, 'first_name\nB\n')).json();
    expect((await get(`/functions/v1/imports/${job.id}`, a)).statusCode).toBe(404);
    expect((await get('/functions/v1/imports', a)).json()).toEqual({ imports: [] });
    expect((await get('/functions/v1/imports/nope', a)).statusCode).toBe(400);
  });
});
