import type { TestTenant } from '@engage/identity/testing';
import { postSigned, SmsApiFake, UNPACED_PACING } from '@engage/messaging/testing';
import { startCampaignsApp } from './campaigns-test-app';

// What the SMS provider is given as the service's address; the app itself listens on 127.0.0.1.
export const SMS_PUBLIC_URL = 'https://engage.example.test';

// The campaigns app listening on 127.0.0.1 beside the Twilio-style SMS fake, which posts its
// signed status callbacks there. `phonePrefix` keeps a file's numbers its own (valid North
// American numbers of the plan: the prefix and four digits).
export async function startSmsCampaignsApp(phonePrefix = '+1646555') {
  const fake = new SmsApiFake(SMS_PUBLIC_URL);
  await fake.start();
  const c = await startCampaignsApp({ env: { PUBLIC_URL: SMS_PUBLIC_URL, SMS_API_URL: fake.url } });
  await c.app.listen(0, '127.0.0.1');
  const appBase = (await c.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  fake.listenAppAt(appBase);
  let counter = 0;
  const phone = () => `${phonePrefix}${String(1000 + ++counter).slice(-4)}`;
  // An SMS channel account of the tenant with its own fake credentials and number, pacing off.
  const smsAccount = async (t: TestTenant, name = 'Offers') => {
    const { sid, token } = fake.account();
    const from = phone();
    const res = await c.app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'sms', name, account_sid: sid, auth_token: token, from_number: from },
    });
    if (res.statusCode !== 201) throw new Error(`sms account: ${res.body}`);
    const id = res.json().channel_account.id as string;
    await c.runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [id, JSON.stringify(UNPACED_PACING)]);
    return { id, sid, token, from };
  };
  // A customer's SMS to the account, signed as the provider signs it; answers the webhook's status.
  const inboundSms = async (account: { id: string; sid: string; token: string; from: string }, from: string, body: string, sid: string) => {
    const path = `/functions/v1/sms-webhook/${account.id}`;
    const params = { MessageSid: sid, AccountSid: account.sid, From: from, To: account.from, Body: body, NumMedia: '0' };
    return (await postSigned(`${appBase}${path}`, `${SMS_PUBLIC_URL}${path}`, params, account.token)).status;
  };
  const close = async () => {
    await c.close();
    await fake.stop();
  };
  return { c, fake, appBase, phone, smsAccount, inboundSms, close };
}

export type SmsCampaignsApp = Awaited<ReturnType<typeof startSmsCampaignsApp>>;
