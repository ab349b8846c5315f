import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { createSelfSignedCert, type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '@engage/platform/testing';
import { createTestTenant, startWebhooksApp } from '../testing/webhooks-test-app';
import { CONTACT_CREATED } from '@engage/crm';

const OLD_SECRET = 'whsec_' + Buffer.alloc(24, 1).toString('base64');
const NEW_SECRET = 'whsec_' + Buffer.alloc(24, 2).toString('base64');

// Rotating a secret (PATCH secret) takes effect on the next attempt of every delivery, including
// retries of deliveries queued before the rotation: each attempt is signed with the secret the
// configuration holds when it is sent (the signature covers the attempt's timestamp anyway).
describe('webhook secret rotation', () => {
  const cert = createSelfSignedCert();
  let app: NestFastifyApplication;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  let failing = true;

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, () => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    ({ app, close } = await startWebhooksApp({ role: 'all', env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath } }));
  });
  afterAll(async () => {
    await receiver.close();
    await close();
  });

  const waitUntil = async <T>(probe: () => Promise<T | undefined> | T | undefined): Promise<Exclude<T, undefined>> => {
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value as Exclude<T, undefined>;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const signedWith = (secret: string, request: ReceivedRequest) => {
    try {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  it('should sign the next delivery and the retry of an older one with the new secret only', async () => {
    const tenant = await createTestTenant(app);
    const created = await app.inject({
      method: 'POST',
      url: '/rest/v1/webhook_configurations',
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { name: 'rotating', url: `${receiver.url}/rotating`, events: [CONTACT_CREATED.name], secret: OLD_SECRET },
    });
    expect(created.statusCode).toBe(201);
    const webhookId = created.json()[0].id as string;
    const contact = await app.inject({ method: 'POST', url: '/rest/v1/contacts', headers: tenant.session, payload: { first_name: 'Before' } });
    expect(contact.statusCode).toBe(201);
    const [first] = await receiver.waitFor(1);
    expect(signedWith(OLD_SECRET, first)).toBe(true);
    const log = await waitUntil(
      async () =>
        (await app.inject({ method: 'GET', url: `/rest/v1/webhook_logs?webhook_id=eq.${webhookId}&status=eq.retrying`, headers: tenant.session })).json()[0],
    );

    const rotated = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/webhook_configurations?id=eq.${webhookId}`,
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { secret: NEW_SECRET },
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json()[0].secret).not.toContain(NEW_SECRET.slice(6, 20));
    failing = false;

    // The retry of the delivery queued before the rotation: same webhook-id and body, new secret.
    const retry = await app.inject({ method: 'POST', url: `/functions/v1/webhooks/logs/${log.id}/retry`, headers: tenant.session });
    expect(retry.json()).toMatchObject({ success: true, attempt: 2 });
    const second = receiver.received[1];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect([signedWith(NEW_SECRET, second), signedWith(OLD_SECRET, second)]).toEqual([true, false]);

    // A delivery queued after the rotation.
    await app.inject({ method: 'POST', url: '/rest/v1/contacts', headers: tenant.session, payload: { first_name: 'After' } });
    const received = await receiver.waitFor(3);
    const third = received[2];
    expect(JSON.parse(third.body).data.first_name).toBe('After');
    expect([signedWith(NEW_SECRET, third), signedWith(OLD_SECRET, third)]).toEqual([true, false]);
  });
});
