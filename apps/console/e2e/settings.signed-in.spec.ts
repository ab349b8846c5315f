import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
// The platform's HTTPS test peer, by path: the console's own tsconfig has no aliases, and the
// whole of @engage/platform/testing (databases, Nest) has no place in a browser test's worker.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { type HttpsReceiver, startHttpsReceiver } from '../../../libs/platform/src/testing/https-receiver';
import { checkPage } from './check-page';
import { signInOwner } from './inbox-setup';

const base = () => process.env.CONSOLE_BASE_URL!;

test('should offer the settings sections of the owner, each with its page', async ({ page }, testInfo) => {
  // Eight sections, each screenshotted twice and checked by axe.
  test.setTimeout(90_000);
  await page.goto(`${base()}/app/settings`);
  const sections = page.getByRole('navigation', { name: 'Settings' });
  for (const [name, slug] of [
    ['Profile', 'profile'],
    ['Team', 'team'],
    ['API keys', 'api-keys'],
    ['Webhooks', 'webhooks'],
    ['Channels', 'channels'],
    ['Re-engagement', 're-engagement'],
    ['Organization', 'organization'],
    ['Subscription', 'subscription'],
  ]) {
    await sections.getByRole('link', { name, exact: true }).click();
    await expect(sections.getByRole('link', { name, exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(page.getByRole('heading', { name, level: 2 })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    await checkPage(page, `settings-${slug}`, testInfo);
  }
  await expect(page.getByText('Starter')).toBeVisible();
});

test('should invite a member, refuse what the API refuses, change a role and revoke the invitation', async ({ page }) => {
  await page.goto(`${base()}/app/settings/team`);
  const members = page.getByRole('table', { name: 'Members' });
  await expect(members.getByRole('row').filter({ hasText: process.env.CONSOLE_OWNER_EMAIL! })).toContainText('Owner');
  const agent = process.env.CONSOLE_AGENT_EMAIL!;
  // The API's refusal, in its own words: the address is already a member.
  await page.getByLabel('Email').fill(agent);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await page.getByLabel('Email').fill('new.member@console.test');
  await page.getByLabel('Role', { exact: true }).selectOption('PROJECT_MANAGER');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Invitation sent to new.member@console.test' })).toBeVisible();
  const invitation = page.getByRole('table', { name: 'Invitations' }).getByRole('row').filter({ hasText: 'new.member@console.test' });
  await expect(invitation).toContainText('Project manager');
  await invitation.getByRole('button', { name: 'Revoke the invitation of new.member@console.test' }).click();
  await expect(page.getByRole('table', { name: 'Invitations' })).toHaveCount(0);

  await members.getByLabel(`Role of ${agent}`).selectOption('TEAM_ADMIN');
  await page.reload();
  await expect(page.getByRole('table', { name: 'Members' }).getByLabel(`Role of ${agent}`)).toHaveValue('TEAM_ADMIN');
  await page.getByRole('table', { name: 'Members' }).getByLabel(`Role of ${agent}`).selectOption('AGENT');
  await page.reload();
  await expect(page.getByRole('table', { name: 'Members' }).getByLabel(`Role of ${agent}`)).toHaveValue('AGENT');
});

test('should save the organization settings, keep them after a reload, and show a refusal naming the setting', async ({ page }) => {
  await page.goto(`${base()}/app/settings/organization`);
  await page.getByLabel('SLA target (minutes)').fill('0');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('alert')).toContainText('sla_target_minutes');
  await page.getByLabel('SLA target (minutes)').fill('120');
  await page.getByLabel('Time zone').selectOption('Africa/Cairo');
  await page.getByRole('button', { name: 'Add hours on Monday' }).click();
  await page.getByLabel('Monday closes').fill('18:30');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Time zone')).toHaveValue('Africa/Cairo');
  await expect(page.getByLabel('SLA target (minutes)')).toHaveValue('120');
  await expect(page.getByLabel('Monday opens')).toHaveValue('09:00');
  await expect(page.getByLabel('Monday closes')).toHaveValue('18:30');
  await expect(page.getByRole('group', { name: 'Tuesday' })).toContainText('Closed');
});

test('should save the opt-out and opt-in keyword lists, keep them after a reload, and show a refused word in place', async ({ page }, testInfo) => {
  const owner = await signInOwner();
  const settings = async () => {
    const response = await fetch(`${base()}/functions/v1/organization/settings`, { headers: { authorization: `Bearer ${owner.token}` } });
    return (await response.json()) as { opt_out_keywords: string[] | null; opt_in_keywords: string[] | null };
  };
  await page.goto(`${base()}/app/settings/organization`);
  const optOut = page.getByRole('group', { name: 'Opt-out keywords' });
  const optIn = page.getByRole('group', { name: 'Opt-in keywords' });
  // Unset, the lists show the defaults that apply.
  await expect(optOut.getByRole('list')).toContainText('UNSUBSCRIBE');
  await expect(optIn.getByRole('listitem')).toHaveText(['START', 'UNSTOP'].map((word) => new RegExp(`^${word}`)));
  await optOut.getByRole('button', { name: 'Remove opt-out keyword QUIT' }).click();
  await optOut.getByLabel('New opt-out keyword').fill('ARRET');
  await optOut.getByLabel('New opt-out keyword').press('Enter');
  await optOut.getByLabel('New opt-out keyword').fill('stop me');
  await optOut.getByRole('button', { name: 'Add opt-out keyword' }).click();
  await optIn.getByLabel('New opt-in keyword').fill('OUI');
  await optIn.getByRole('button', { name: 'Add opt-in keyword' }).click();
  await page.getByRole('button', { name: 'Save settings' }).click();
  // The API refuses the word with a space; its message, naming the setting, is inside that list.
  await expect(optOut.getByRole('alert')).toContainText('opt_out_keywords');
  await expect(optOut).toHaveAttribute('aria-invalid', 'true');
  await expect(optIn.getByRole('alert')).toHaveCount(0);
  await checkPage(page, 'settings-organization-keywords', testInfo);
  expect((await settings()).opt_out_keywords).toBeNull();

  await optOut.getByRole('button', { name: 'Remove opt-out keyword stop me' }).click();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.reload();
  const kept = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'ARRET'];
  await expect(optOut.getByRole('listitem')).toHaveText(kept.map((word) => new RegExp(`^${word}Remove$`)));
  await expect(optIn.getByRole('listitem')).toHaveText(['START', 'UNSTOP', 'OUI'].map((word) => new RegExp(`^${word}Remove$`)));
  expect(await settings()).toMatchObject({ opt_out_keywords: kept, opt_in_keywords: ['START', 'UNSTOP', 'OUI'] });

  // Back to the defaults: both settings unset again.
  await optOut.getByRole('button', { name: /^Back to the defaults/ }).click();
  await optIn.getByRole('button', { name: /^Back to the defaults/ }).click();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(await settings()).toMatchObject({ opt_out_keywords: null, opt_in_keywords: null });
});

test('should add a chat-app channel, show its queue, pause and resume it, and save its pacing as the API checks it', async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/settings/channels`);
  await page.getByRole('button', { name: 'Add Chat app' }).click();
  await page.getByLabel('Name').fill('Console line');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Channel created' });
  expect(await dialog.getByLabel('Inbound token').inputValue()).toMatch(/^chs_/);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('table', { name: 'Channels' }).getByRole('link', { name: 'Console line' }).click();
  await expect(page.getByRole('heading', { name: 'Console line', level: 2 })).toBeVisible();
  const channelId = page.url().split('/').pop()!;

  await page.getByLabel('Reason (optional)').fill('holiday');
  await page.getByRole('button', { name: 'Pause sending' }).click();
  await expect(page.getByText('manual: holiday')).toBeVisible();
  // An integrator's queued send waits while the channel is paused, and the page shows it queued.
  const signIn = await fetch(`${base()}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: process.env.CONSOLE_OWNER_EMAIL, password: process.env.CONSOLE_OWNER_PASSWORD }),
  });
  const { access_token: token } = (await signIn.json()) as { access_token: string };
  const queued = await fetch(`${base()}/functions/v1/messaging/outbound`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel_account_id: channelId, to: '201001112233', text: 'Your order has shipped' }),
  });
  expect(queued.status).toBe(202);
  await page.reload();
  await expect(page.getByText('api_queued 1')).toBeVisible();
  await checkPage(page, 'settings-channel', testInfo);

  await page.getByLabel('Gap from (s)', { exact: true }).fill('5');
  await page.getByLabel('Gap to (s)', { exact: true }).fill('5');
  await page.getByRole('button', { name: 'Save pacing' }).click();
  await expect(page.getByRole('alert')).toContainText('pacing.gap_seconds');
  await page.getByLabel('Gap from (s)', { exact: true }).fill('4');
  await page.getByLabel('Gap to (s)', { exact: true }).fill('12');
  await page.getByLabel('Per hour', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Save pacing' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Pacing saved.' })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Gap to (s)', { exact: true })).toHaveValue('12');
  await expect(page.getByLabel('Per hour', { exact: true })).toHaveValue('');
  await page.getByRole('button', { name: 'Back to the defaults' }).click();
  await expect(page.getByLabel('Gap to (s)', { exact: true })).toHaveValue('9');
  await expect(page.getByLabel('Per hour', { exact: true })).toHaveValue('80');

  await page.getByRole('button', { name: 'Rotate inbound token' }).click();
  await expect(page.getByRole('dialog', { name: 'Inbound token rotated' })).toBeVisible();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Resume sending' }).click();
  await expect(page.getByRole('button', { name: 'Pause sending' })).toBeVisible();
});

test("should save the customer's AI key without ever showing it in the page or in an answer", async ({ page }) => {
  const key = `sk-console-${Date.now()}-secret-7391`;
  const answers: string[] = [];
  page.on('response', async (response) => {
    if (response.url().includes('/functions/v1/') || response.url().includes('/rest/v1/')) answers.push(await response.text().catch(() => ''));
  });
  await page.goto(`${base()}/app/settings/re-engagement`);
  await page.getByLabel('Nudge after (hours of silence, 12 to 23)').fill('22');
  await page.getByLabel('Our own key').check();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Save re-engagement settings' }).click();
  // The platform has no AI here: a key needs its own address, and the API says so.
  await expect(page.getByRole('alert')).toContainText('custom_base_url');
  await expect(page.getByLabel('API key')).toHaveValue(key);
  // An address nothing answers at (allowed by OUTBOUND_ALLOW_HOSTS): the key is stored and the check's failure shown.
  await page.getByLabel('API base URL (OpenAI-compatible, optional)').fill('https://127.0.0.1:9/v1');
  await page.getByRole('button', { name: 'Save re-engagement settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'The key was saved' })).toBeVisible();
  await expect(page.getByText('Set, ending in 7391.')).toBeVisible();
  await expect(page.getByLabel('API key')).toHaveValue('');
  await page.reload();
  await expect(page.getByLabel('Nudge after (hours of silence, 12 to 23)')).toHaveValue('22');
  await expect(page.getByText('Set, ending in 7391.')).toBeVisible();
  expect(await page.content()).not.toContain(key);
  expect(answers.length).toBeGreaterThan(1);
  for (const answer of answers) expect(answer).not.toContain(key);
  // Enabling needs an AI that can write: the API's refusal is shown as it words it.
  await page.getByLabel('Our own key').check();
  await page.getByRole('button', { name: 'Remove the key' }).click();
  await expect(page.getByText('No key set.')).toBeVisible();
  await page.getByLabel('Nudge customers before their window closes').check();
  await page.getByRole('button', { name: 'Save re-engagement settings' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
});

test('should create an API key shown once in a dialog, list it by prefix and revoke it', async ({ page }) => {
  await page.goto(`${base()}/app/settings/api-keys`);
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  // The browser's own check first: the name is required.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByLabel('Name').fill('Zapier from the console');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'API key created' });
  await expect(dialog).toBeVisible();
  const key = await dialog.getByLabel('API key').inputValue();
  expect(key).toMatch(/^eng_/);
  // The key works against the API.
  const answer = await fetch(`${base()}/functions/v1/rest-api-proxy/contacts?limit=1`, { headers: { 'x-api-key': key } });
  expect(answer.status).toBe(200);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toHaveCount(0);
  const row = page.getByRole('row').filter({ hasText: 'Zapier from the console' });
  await expect(row).toBeVisible();
  await expect(row).toContainText(`${key.slice(0, 8)}`);
  expect(await page.content()).not.toContain(key);
  await row.getByRole('button', { name: 'Revoke Zapier from the console' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Zapier from the console' })).toHaveCount(0);
  const revoked = await fetch(`${base()}/functions/v1/rest-api-proxy/contacts?limit=1`, { headers: { 'x-api-key': key } });
  expect(revoked.status).toBe(401);
});

test.describe('webhooks', () => {
  let receiver: HttpsReceiver;
  let failing = false;
  test.beforeAll(async () => {
    const certPath = process.env.CONSOLE_TLS_CERT!;
    const cert = { certPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(join(dirname(certPath), 'key.pem'), 'utf8') };
    receiver = await startHttpsReceiver(cert, () => (failing ? { status: 503, body: 'receiver down' } : { status: 200, body: 'ok' }));
  });
  test.afterAll(async () => receiver?.close());

  test('should create a webhook, show the API refusal in place, send the test, and retry a failed delivery from the log', async ({ page }, testInfo) => {
    await page.goto(`${base()}/app/settings/webhooks`);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByLabel('Name').fill('Console hook');
    await page.getByLabel('URL').fill(`${receiver.url}/hooks/console`);
    // No event chosen: the API's own refusal is shown.
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    await page.getByRole('group', { name: 'Events' }).getByLabel('contact.created').check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhook created' });
    await expect(dialog).toBeVisible();
    expect(await dialog.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
    await dialog.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Send a test to Console hook' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Test of Console hook' })).toContainText('Delivered: HTTP 200');
    expect(receiver.received.at(-1)?.headers['webhook-signature']).toBeTruthy();

    await page.getByRole('link', { name: 'Deliveries of Console hook' }).click();
    await expect(page.getByRole('heading', { name: 'Console hook', level: 2 })).toBeVisible();
    failing = true;
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Test:' })).toContainText('Not delivered');
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const failedRow = deliveries.getByRole('row').filter({ hasText: 'failed' });
    await expect(failedRow).toHaveCount(1);
    await expect(failedRow).toContainText('HTTP 503');
    await expect(deliveries.getByRole('row').filter({ hasText: 'success' }).getByRole('button', { name: 'Retry' })).toHaveCount(0);
    await checkPage(page, 'settings-webhook-deliveries', testInfo);

    failing = false;
    await failedRow.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Retry of webhook.test' })).toContainText('Delivered: HTTP 200');
    // The retried delivery has succeeded now: no row offers to retry it again.
    await expect(deliveries.getByRole('row').filter({ hasText: 'success' })).toHaveCount(2);
    await expect(deliveries.getByRole('button', { name: 'Retry' })).toHaveCount(0);
    await page.getByLabel('Status').selectOption('failed');
    await expect(deliveries.getByRole('row')).toHaveCount(2);
  });
});

test('should not offer an AGENT the sections only owners and admins may use', async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(`${base()}/app/sign-in`);
  await page.getByLabel('Email').fill(process.env.CONSOLE_AGENT_EMAIL!);
  await page.getByLabel('Password').fill(process.env.CONSOLE_OWNER_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.goto(`${base()}/app/settings`);
  const sections = page.getByRole('navigation', { name: 'Settings' });
  await expect(sections.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(page.getByText('Role: AGENT')).toBeVisible();
  await expect(sections.getByRole('link', { name: 'API keys' })).toHaveCount(0);
  await expect(sections.getByRole('link', { name: 'Webhooks' })).toHaveCount(0);
  await expect(sections.getByRole('link', { name: 'Channels' })).toHaveCount(0);
  await expect(sections.getByRole('link', { name: 'Re-engagement' })).toHaveCount(0);
  // Team and Organization are read, not changed.
  await sections.getByRole('link', { name: 'Team' }).click();
  await expect(page.getByRole('table', { name: 'Members' })).toContainText(process.env.CONSOLE_OWNER_EMAIL!);
  await expect(page.getByRole('button', { name: 'Send invitation' })).toHaveCount(0);
  await expect(page.getByRole('combobox')).toHaveCount(0);
  await sections.getByRole('link', { name: 'Organization' }).click();
  await expect(page.getByLabel('Time zone')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Save settings' })).toHaveCount(0);
  await expect(page.getByRole('group', { name: 'Opt-out keywords' }).getByRole('listitem').first()).toHaveText('STOP');
  await expect(page.getByRole('button', { name: /^(Remove|Add|Back to the defaults)/ })).toHaveCount(0);
  // A deep link to a section the role may not use lands on the profile.
  await page.goto(`${base()}/app/settings/api-keys`);
  await expect(page.getByRole('heading', { name: 'Profile', level: 2 })).toBeVisible();
  await expect(page).toHaveURL(/\/app\/settings$/);
  await context.close();
});
