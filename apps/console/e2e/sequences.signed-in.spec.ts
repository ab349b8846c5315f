import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';
import { base, createChannel, type Owner, setProviderKey, signInOwner } from './inbox-setup';

async function api<T>(owner: Owner, path: string, method: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', prefer: 'return=representation' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

test('should create a sequence, activate it, enrol a segment and exit one enrolment', async ({ page, browser }, testInfo) => {
  test.setTimeout(90_000);
  const owner = await signInOwner();
  setProviderKey(owner.organizationId);
  const run = randomBytes(3).toString('hex');
  const tag = `seq-${run}`;
  await createChannel(owner, { kind: 'chat_app', name: `Drip line ${run}` });
  const phone = () => `+2010${Math.floor(10_000_000 + Math.random() * 89_999_999)}`;
  for (const [name, optIn] of [
    ['Dina', true],
    ['Emad', true],
    ['Fadi', false],
  ] as const) {
    await api(owner, '/rest/v1/contacts', 'POST', { first_name: `${name} ${run}`, phones: [phone()], tags: [tag], opt_in_status: optIn });
  }
  await api(owner, '/rest/v1/segments', 'POST', { name: `Drip ${run}`, filter: `tags=cs.{${tag}}` });

  await page.goto(`${base()}/app/campaigns`);
  await page.getByRole('navigation', { name: 'Campaigns' }).getByRole('link', { name: 'Sequences' }).click();
  await page.getByRole('button', { name: 'New sequence' }).click();
  await page.getByLabel('Name', { exact: true }).fill(`Welcome ${run}`);
  await page.getByLabel('Channel').selectOption({ label: `Drip line ${run} (chat app)` });
  await page.getByLabel('Step 1 text').fill('Hi {{contact.first_name | there}}');
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.getByLabel('Step 2 delay (days)').fill('1');
  await page.getByLabel('Step 2 at time (HH:MM, optional)').fill('25:00');
  await page.getByLabel('Step 2 text').fill('Day two');
  await page.getByRole('button', { name: 'Create sequence' }).click();
  // The API's refusal is shown inside the step it names, and nowhere else.
  const second = page.getByRole('group', { name: 'Step 2' });
  await expect(second.getByRole('alert')).toContainText('steps[1].at_time');
  await expect(second).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('group', { name: 'Step 1' }).getByRole('alert')).toHaveCount(0);
  await checkPage(page, 'campaigns-sequence-new', testInfo);
  await page.getByLabel('Step 2 at time (HH:MM, optional)').fill('10:00');
  await page.getByRole('button', { name: 'Create sequence' }).click();

  await expect(page.getByRole('heading', { name: `Welcome ${run}`, level: 2 })).toBeVisible();
  const status = page.getByRole('status').filter({ hasText: 'Status:' });
  await expect(status).toContainText('draft, version 1');
  await expect(page.getByRole('list', { name: 'Steps' })).toContainText('After 1 day, at 10:00: Day two');
  await page.getByRole('button', { name: 'Activate' }).click();
  await expect(status).toContainText('active, version 1');

  await page.getByLabel('Segment', { exact: true }).selectOption({ label: `Drip ${run}` });
  await page.getByRole('button', { name: 'Enrol' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Enrolled' })).toHaveText(
    'Enrolled 2, already enrolled 0; skipped: 1 not opted in, 0 without a phone.',
  );
  const enrolments = page.getByRole('table', { name: 'Enrolments' });
  await expect(enrolments.getByRole('row')).toHaveCount(3);
  await expect(enrolments.getByRole('row').filter({ hasText: `Dina ${run}` })).toContainText('active');
  // The first step goes at once; the second waits for its day and time.
  await expect(
    enrolments
      .getByRole('row')
      .filter({ hasText: `Dina ${run}` })
      .getByRole('cell')
      .nth(3),
  ).toHaveText('1', { timeout: 20_000 });
  // Enrolling the segment again counts both as already enrolled.
  await page.getByRole('button', { name: 'Enrol' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Enrolled' })).toContainText('Enrolled 0, already enrolled 2');

  await enrolments.getByRole('button', { name: `Exit Emad ${run}` }).click();
  const emad = enrolments.getByRole('row').filter({ hasText: `Emad ${run}` });
  await expect(emad).toContainText('exited');
  await expect(emad).toContainText('manual');
  await expect(emad.getByRole('button', { name: /^Exit/ })).toHaveCount(0);
  const sequences = await api<{ sequences: { id: string; name: string; enrollments: Record<string, number> }[] }>(
    owner,
    '/functions/v1/campaigns/sequences',
    'GET',
  );
  const stored = sequences.sequences.find((sequence) => sequence.name === `Welcome ${run}`)!;
  expect(stored.enrollments).toMatchObject({ active: 1, exited: 1 });
  await checkPage(page, 'campaigns-sequence', testInfo);

  // An ended run can be followed by a new one: Emad chosen by name and enrolled again.
  await page.getByLabel('Chosen contacts').check();
  await page.getByLabel('Find contacts').fill(`Emad ${run}`);
  await page.getByRole('group', { name: 'Contacts to enrol' }).getByLabel(`Emad ${run}`).check();
  await expect(page.getByText('1 chosen')).toBeVisible();
  await page.getByRole('button', { name: 'Enrol' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Enrolled' })).toContainText('Enrolled 1, already enrolled 0');
  await expect(enrolments.getByRole('row').filter({ hasText: `Emad ${run}` })).toHaveCount(2);
  await expect(
    enrolments
      .getByRole('row')
      .filter({ hasText: `Emad ${run}` })
      .filter({ hasText: 'active' }),
  ).toHaveCount(1);

  // A change on an active sequence makes a new version; the page says so before saving.
  await page.getByRole('button', { name: 'Edit sequence' }).click();
  await expect(page.getByRole('note')).toContainText('makes version 2');
  await page.getByLabel('Step 2 text').fill('Day two, again');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(status).toContainText('active, version 2');
  await expect(
    enrolments
      .getByRole('row')
      .filter({ hasText: `Dina ${run}` })
      .getByRole('cell')
      .nth(2),
  ).toHaveText('1');

  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(status).toContainText('paused, version 2');
  await page.getByRole('link', { name: 'Back to sequences' }).click();
  const row = page
    .getByRole('table', { name: 'Sequences' })
    .getByRole('row')
    .filter({ hasText: `Welcome ${run}` });
  await expect(row).toContainText('paused');
  await checkPage(page, 'campaigns-sequences', testInfo);

  // An AGENT reads the sequence but is offered nothing the API would refuse it.
  const agentContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const agent = await agentContext.newPage();
  await agent.goto(`${base()}/app/sign-in`);
  await agent.getByLabel('Email').fill(process.env.CONSOLE_AGENT_EMAIL!);
  await agent.getByLabel('Password').fill(process.env.CONSOLE_OWNER_PASSWORD!);
  await agent.getByRole('button', { name: 'Sign in' }).click();
  await expect(agent.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await agent.goto(`${base()}/app/campaigns/sequences/${stored.id}`);
  await expect(agent.getByRole('table', { name: 'Enrolments' })).toContainText(`Dina ${run}`);
  await expect(agent.getByRole('button', { name: /^(Activate|Pause|Edit sequence|Enrol|Exit)/ })).toHaveCount(0);
  await agent.goto(`${base()}/app/campaigns/sequences`);
  await expect(agent.getByRole('table', { name: 'Sequences' })).toBeVisible();
  await expect(agent.getByRole('button', { name: 'New sequence' })).toHaveCount(0);
  await agentContext.close();
});
