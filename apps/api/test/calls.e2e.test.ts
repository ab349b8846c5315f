import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { OrganizationService } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { createApiApp } from '../src/create-api-app';

// The composed app (role 'all': relay and consumers run): a recording registered with an API key
// matches its contact by phone, and the contact's timeline shows the call from call.received.
describe('call recordings in the composed app', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'all', migrations: CONTEXT_MIGRATIONS });
    app = await createApiApp(runtime);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  it('registers an uploaded recording and shows the call on the contact’s timeline', async () => {
    const t = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'suite_id', 'e2e-suite');
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Karim', phones: ['+201001234567'] });
    const boundary = `----e2e${randomBytes(6).toString('hex')}`;
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const payload = Buffer.concat([
      Buffer.from(field('customer_phone', '0020 100 123 4567') + field('direction', 'outbound') + field('duration_seconds', '125')),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.ogg"\r\nContent-Type: audio/ogg\r\n\r\nOggS\x00\x02`),
      randomBytes(2048),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/mobile-api/call-recording',
      payload,
      headers: { ...t.key, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, status: 'received', contact_matched: true, recording_stored: true });
    let entries: { type: string; summary: string; data: Record<string, unknown> }[] = [];
    for (let i = 0; i < 250 && !entries.some((e) => e.type === 'call.received'); i++) {
      await sleep(40);
      entries = (await app.inject({ method: 'GET', url: `/functions/v1/contacts/${contact.id}/timeline`, headers: t.key })).json().entries;
    }
    const entry = entries.find((e) => e.type === 'call.received');
    expect(entry).toMatchObject({
      summary: 'Outbound call recorded (2:05)',
      data: { id: res.json().call_record_id, direction: 'outbound', duration_seconds: 125 },
    });
    // No transcription provider is configured here: the pipeline says so on the record.
    const url = `/rest/v1/call_records?id=eq.${res.json().call_record_id}&select=status,contact_id,recording_content_type`;
    let rows: { status: string }[] = [];
    for (let i = 0; i < 250 && rows[0]?.status !== 'transcription_unavailable'; i++) {
      await sleep(40);
      rows = (await app.inject({ method: 'GET', url, headers: t.session })).json();
    }
    expect(rows).toEqual([{ status: 'transcription_unavailable', contact_id: contact.id, recording_content_type: 'audio/ogg' }]);
  });
});
