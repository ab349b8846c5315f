import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';

const base = () => process.env.CONSOLE_BASE_URL!;

test('should add a Count widget over tagged contacts built with the filter builder and show its value', async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/dashboards`);
  // The default widgets of a new member's dashboard, each a figure named by its title.
  await expect(page.getByRole('figure', { name: 'Open conversations' })).toBeVisible();
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByLabel('Title').fill('VIP contacts');
  await page.getByLabel('Table').selectOption('contacts');
  await page.getByLabel('Aggregation').selectOption('Count');
  // A refusal of the API, shown as it words it: a column contacts do not have.
  await page.getByLabel("Filter in the data API's grammar").fill('secret=eq.1');
  await page.getByLabel('Date range').selectOption('This Month');
  await page.getByRole('button', { name: 'Add widget' }).click();
  await expect(page.getByRole('alert')).toContainText('secret');
  await page.getByLabel("Filter in the data API's grammar").fill('');
  await page.getByLabel('Column', { exact: true }).last().fill('tags');
  await page.getByLabel('Operator').selectOption('cs');
  await page.getByLabel('Value', { exact: true }).fill('vip');
  await page.getByRole('button', { name: 'Add condition' }).click();
  await expect(page.getByLabel("Filter in the data API's grammar")).toHaveValue('tags=cs.{vip}');
  await page.getByRole('button', { name: 'Add widget' }).click();
  // global-setup.ts adds one contact tagged vip this month.
  const widget = page.getByRole('figure', { name: 'VIP contacts' });
  await expect(widget.getByText('1', { exact: true })).toBeVisible();
  await checkPage(page, 'dashboards-widgets', testInfo);
});

test('should keep a reordered dashboard after signing in again, and keep each member to their own widgets', async ({ page, browser }) => {
  await page.goto(`${base()}/app/dashboards`);
  const figures = page.getByRole('figure');
  await expect(figures.first()).toBeVisible();
  const before = await figures.evaluateAll((nodes) => nodes.map((node) => node.querySelector('figcaption')?.textContent ?? ''));
  expect(before.length).toBeGreaterThan(2);
  // By keyboard: the second widget moved first.
  await page.getByRole('button', { name: `Move ${before[1]} earlier` }).click();
  await expect(figures.first()).toHaveAccessibleName(before[1]);
  // By dragging: the (new) first widget's handle dropped onto the third.
  const handle = page.getByRole('button', { name: `Drag ${before[1]}` });
  const target = figures.nth(2);
  const from = (await handle.boundingBox())!;
  const to = (await target.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + 20, from.y + 10, { steps: 4 });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
  await page.mouse.up();
  await expect(figures.nth(2)).toHaveAccessibleName(before[1]);
  const after = await figures.evaluateAll((nodes) => nodes.map((node) => node.querySelector('figcaption')?.textContent ?? ''));

  // Signed in again in a fresh browser: the same order.
  const fresh = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const again = await fresh.newPage();
  await again.goto(`${base()}/app/sign-in`);
  await again.getByLabel('Email').fill(process.env.CONSOLE_OWNER_EMAIL!);
  await again.getByLabel('Password').fill(process.env.CONSOLE_OWNER_PASSWORD!);
  await again.getByRole('button', { name: 'Sign in' }).click();
  await expect(again.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await again.goto(`${base()}/app/dashboards`);
  await expect(again.getByRole('figure').first()).toBeVisible();
  expect(await again.getByRole('figure').evaluateAll((nodes) => nodes.map((node) => node.querySelector('figcaption')?.textContent ?? ''))).toEqual(after);
  await fresh.close();

  // Another member (the AGENT) has the default dashboard, without the owner's widget or order.
  const agentContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const agent = await agentContext.newPage();
  await agent.goto(`${base()}/app/sign-in`);
  await agent.getByLabel('Email').fill(process.env.CONSOLE_AGENT_EMAIL!);
  await agent.getByLabel('Password').fill(process.env.CONSOLE_OWNER_PASSWORD!);
  await agent.getByRole('button', { name: 'Sign in' }).click();
  await expect(agent.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await agent.goto(`${base()}/app/dashboards`);
  await expect(agent.getByRole('figure', { name: 'Incoming messages' })).toBeVisible();
  await expect(agent.getByRole('figure', { name: 'VIP contacts' })).toHaveCount(0);
  await agentContext.close();
});
