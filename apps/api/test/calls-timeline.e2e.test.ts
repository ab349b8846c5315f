import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoopbackProviders, wavSaying } from '@engage/calls/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

interface TimelineEntry {
  type: string;
  source: string;
  summary: string;
  data: Record<string, unknown>;
}

// In the composed app (role 'all'): a contact's call uploaded to /call-recording goes through the
// pipeline against loopback transcription and AI peers, and the CRM shows the outcome on the contact's timeline
// from the calls context's declared projection.
describe('call analysis on the contact timeline', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let peer: LoopbackProviders;
  let t: TestTenant;

  beforeAll(async () => {
    peer = await new LoopbackProviders().start();
    const env = { TRANSCRIBE_BASE_URL: peer.baseUrl, AI_BASE_URL: peer.baseUrl, JOBS_POLL_MS: '50' };
    runtime = await startTestRuntime({ role: 'all', migrations: CONTEXT_MIGRATIONS, env });
    app = await createApiApp(runtime);
    t = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'suite_id', 'suite-t');
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    await peer.stop();
  });

  // A recording uploaded through POST /functions/v1/mobile-api/call-recording (multipart, API key).
  async function callOf(contactId: string, text: string): Promise<string> {
    const boundary = `----e2e${randomUUID()}`;
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="contact_id"\r\n\r\n${contactId}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
      wavSaying(text),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { ...t.key, 'content-type': `multipart/form-data; boundary=${boundary}` };
    const res = await app.inject({ method: 'POST', url: '/functions/v1/mobile-api/call-recording', payload, headers });
    expect(res.json()).toMatchObject({ success: true, status: 'received', contact_matched: true, recording_stored: true });
    return res.json().call_record_id as string;
  }

  const entryOf = async (contactId: string, type: string): Promise<TimelineEntry> => {
    for (let i = 0; i < 300; i++) {
      const res = await app.inject({ method: 'GET', url: `/functions/v1/contacts/${contactId}/timeline`, headers: t.key });
      const found = (res.json().entries as TimelineEntry[]).find((e) => e.type === type);
      if (found) return found;
      await sleep(40);
    }
    throw new Error(`no ${type} on the timeline of ${contactId}`);
  };

  it('should show call.analyzed with sentiment, keywords, action items and summary, and call.failed with its reason', async () => {
    const headers = { ...t.session, prefer: 'return=representation' };
    const contact = await app.inject({ method: 'POST', url: '/rest/v1/contacts', headers, payload: { first_name: 'Mona' } });
    expect(contact.statusCode).toBe(201);
    const contactId = contact.json()[0].id as string;

    const analyzedId = await callOf(contactId, 'thank you, please send the updated quotation tomorrow');
    const analyzed = await entryOf(contactId, 'call.analyzed');
    expect(analyzed).toMatchObject({
      source: 'calls',
      summary: 'Call analysed (positive sentiment): The customer said: thank you, please send the updated quotation tomorrow',
      data: { call_record_id: analyzedId, analyser: 'ai', sentiment: 'positive', keywords: ['thank', 'please', 'updated'], action_items: ['Send the quote'] },
    });

    peer.completionScript.push({ content: 'not json' }, { content: 'still not json' });
    const failedId = await callOf(contactId, 'hello');
    const failed = await entryOf(contactId, 'call.failed');
    expect(failed).toMatchObject({
      summary: 'Call processing failed: the AI answered twice with malformed analysis (the answer is not JSON)',
      data: { call_record_id: failedId },
    });
  });
});
