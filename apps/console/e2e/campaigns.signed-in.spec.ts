import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';
import { base, createChannel, type Owner, setProviderKey, signInOwner } from './inbox-setup';

// Pacing off, so the broadcast drains within the test (the default chat-app pacing waits 30-60 s
// before a cold recipient, and holds sends in the recipients' quiet hours).
const UNPACED = {
  gap_seconds: [0, 0],
  cold_gap_seconds: [0, 0],
  per_hour: null,
  per_day: null,
  warmup: false,
  per_recipient_min_gap_seconds: 0,
  per_recipient_per_hour: 3600,
  quiet_hours: null,
};

async function api(owner: Owner, path: string, method: string, body: unknown): Promise<void> {
  const response = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

test('should build a segment, compose a broadcast to it, start it and watch it reach completed', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const owner = await signInOwner();
  setProviderKey(owner.organizationId);
  const run = randomBytes(3).toString('hex');
  const tag = `bc-${run}`;
  const chat = await createChannel(owner, { kind: 'chat_app', name: `Broadcast line ${run}` });
  await api(owner, `/functions/v1/messaging/channel-accounts/${chat.id}`, 'PATCH', { pacing: UNPACED });
  const phone = () => `+2010${Math.floor(10_000_000 + Math.random() * 89_999_999)}`;
  for (const [name, optIn] of [
    ['Amal', true],
    ['Badr', true],
    ['Carim', false],
  ] as const) {
    await api(owner, '/rest/v1/contacts', 'POST', { first_name: `${name} ${run}`, phones: [phone()], tags: [tag], opt_in_status: optIn });
  }

  await page.goto(`${base()}/app/campaigns`);
  await page.getByRole('button', { name: 'New segment' }).click();
  await page.getByLabel('Segment name').fill(`Weekend ${run}`);
  await page.getByLabel('Column').fill('tags');
  await page.getByLabel('Operator').selectOption('cs');
  await page.getByLabel('Value', { exact: true }).fill(tag);
  await page.getByRole('button', { name: 'Add condition' }).click();
  await expect(page.getByRole('status').filter({ hasText: '3 contacts' })).toContainText('2 reachable');
  await expect(page.getByRole('status').filter({ hasText: '3 contacts' })).toContainText('1 not opted in');
  await page.getByRole('button', { name: 'Save segment' }).click();
  await expect(page.getByRole('table', { name: 'Segments' })).toContainText(`Weekend ${run}`);

  await page.getByRole('button', { name: 'New broadcast' }).click();
  await page.getByLabel('Name').fill(`Weekend sale ${run}`);
  await page.getByLabel('Channel').selectOption({ label: `Broadcast line ${run} (chat app)` });
  await page.getByLabel('Audience (segment)').selectOption({ label: `Weekend ${run}` });
  await expect(page.getByRole('status').filter({ hasText: '2 reachable' })).toBeVisible();
  await page.getByLabel('Text').fill('Hi {{contact.first_name | there}}, 20% off this weekend');
  await expect(page.getByLabel('As sent')).toContainText('Hi there, 20% off this weekend');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByRole('heading', { name: `Weekend sale ${run}`, level: 2 })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Status:' })).toContainText('draft');

  await page.getByRole('button', { name: 'Start now' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Status:' })).toContainText('completed', { timeout: 60_000 });
  // Every recipient has an outcome: two sent, the one not opted in skipped.
  await expect(page.getByLabel('Progress')).toHaveAttribute('value', '3');
  await expect(page.getByLabel('Progress')).toHaveAttribute('max', '3');
  // The report's chart, with its table: two sent, one skipped as not opted in.
  const chart = page.getByRole('region', { name: 'Recipients by status' });
  await expect(chart.getByRole('row', { name: 'sent' })).toContainText('2');
  await expect(chart.getByRole('row', { name: 'skipped no opt in' })).toContainText('1');
  await expect(chart.getByRole('row', { name: 'queued' })).toContainText('0');
  await checkPage(page, 'campaigns-broadcast', testInfo);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download recipients (CSV)' }).click();
  const csv = await (await download).path();
  expect(csv).toBeTruthy();

  await page.getByRole('link', { name: 'Back to campaigns' }).click();
  await expect(
    page
      .getByRole('table', { name: 'Broadcasts' })
      .getByRole('row')
      .filter({ hasText: `Weekend sale ${run}` }),
  ).toContainText('completed');
  await checkPage(page, 'campaigns', testInfo);
});

test('should compose a broadcast to a filter, with media, a reply window and an auto-pause, saved as the API has them', async ({ page }, testInfo) => {
  const owner = await signInOwner();
  const run = randomBytes(3).toString('hex');
  const tag = `fl-${run}`;
  const chat = await createChannel(owner, { kind: 'chat_app', name: `Filter line ${run}` });
  await api(owner, '/rest/v1/contacts', 'POST', { first_name: `Dina ${run}`, phones: ['+201001234599'], tags: [tag], opt_in_status: true });

  await page.goto(`${base()}/app/campaigns/broadcasts/new`);
  await page.getByLabel('Name').fill(`Filtered ${run}`);
  await page.getByLabel('Channel').selectOption({ label: `Filter line ${run} (chat app)` });
  await page.getByRole('radio', { name: 'A filter' }).check();
  await page.getByLabel('Column').fill('tags');
  await page.getByLabel('Operator').selectOption('cs');
  await page.getByLabel('Value', { exact: true }).fill(tag);
  await page.getByRole('button', { name: 'Add condition' }).click();
  await expect(page.getByRole('status').filter({ hasText: '1 contact' })).toContainText('1 reachable');
  await page.getByLabel('Text').fill('New arrivals this week');
  await page.getByLabel('Media address (optional)').fill('https://cdn.example.com/arrivals.mp4');
  await page.getByLabel('Media kind').selectOption('video');
  await page.getByLabel('Replies count for (hours)').fill('24');
  await page.getByLabel('Pause after failures in a row').fill('3');
  await checkPage(page, 'campaigns-compose-filter', testInfo);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByRole('heading', { name: `Filtered ${run}`, level: 2 })).toBeVisible();

  const id = page.url().split('/').pop();
  const response = await fetch(`${base()}/functions/v1/campaigns/broadcasts/${id}`, { headers: { authorization: `Bearer ${owner.token}` } });
  const saved = (await response.json()) as Record<string, unknown>;
  expect(saved).toMatchObject({
    status: 'draft',
    channel_account_id: chat.id,
    audience: { filter: `tags=cs.{${tag}}` },
    content: { text: 'New arrivals this week', media_url: 'https://cdn.example.com/arrivals.mp4', media_kind: 'video' },
    reply_window_hours: 24,
    auto_pause_after_failures: 3,
  });
});

test('should compose a broadcast to contacts chosen by name, saved with their ids', async ({ page }) => {
  const owner = await signInOwner();
  const run = randomBytes(3).toString('hex');
  const chat = await createChannel(owner, { kind: 'chat_app', name: `Chosen line ${run}` });
  const made = await fetch(`${base()}/rest/v1/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', prefer: 'return=representation' },
    body: JSON.stringify({ first_name: `Hala ${run}`, phones: ['+201001234598'], opt_in_status: true }),
  });
  const [hala] = (await made.json()) as { id: string }[];

  await page.goto(`${base()}/app/campaigns/broadcasts/new`);
  await page.getByLabel('Name').fill(`Chosen ${run}`);
  await page.getByLabel('Channel').selectOption({ label: `Chosen line ${run} (chat app)` });
  await page.getByRole('radio', { name: 'Chosen contacts' }).check();
  await page.getByLabel('Find contacts').fill(`Hala ${run}`);
  await page.getByRole('checkbox', { name: `Hala ${run}` }).check();
  await expect(page.getByText('1 chosen')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: '1 contact' })).toContainText('1 reachable');
  await page.getByLabel('Text').fill('Your order is ready');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByRole('heading', { name: `Chosen ${run}`, level: 2 })).toBeVisible();
  const id = page.url().split('/').pop();
  const saved = await (await fetch(`${base()}/functions/v1/campaigns/broadcasts/${id}`, { headers: { authorization: `Bearer ${owner.token}` } })).json();
  expect(saved).toMatchObject({ channel_account_id: chat.id, audience: { contact_ids: [hala.id] } });
});
