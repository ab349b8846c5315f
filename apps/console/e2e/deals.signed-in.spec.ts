import { expect, type Locator, type Page, test } from '@playwright/test';
import { checkPage } from './check-page';

// The deals kanban (issue 35, item 6), driven by role and name as the contract of item 7 says:
// each column a region named by its stage, cards as articles with the deal's title.
const base = () => process.env.CONSOLE_BASE_URL!;

// One sign-in for the file's API calls (the API limits sign-ins).
let token: Promise<string> | undefined;
const ownerToken = () => (token ??= signIn());

async function signIn(): Promise<string> {
  const response = await fetch(`${base()}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: process.env.CONSOLE_OWNER_EMAIL, password: process.env.CONSOLE_OWNER_PASSWORD }),
  });
  const { access_token: accessToken } = (await response.json()) as { access_token?: string };
  if (!accessToken) throw new Error(`sign-in for the API calls failed: ${response.status}`);
  return accessToken;
}

async function rest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base()}${path}`, {
    method,
    headers: { authorization: `Bearer ${await ownerToken()}`, 'content-type': 'application/json', prefer: 'return=representation' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function newDeal(title: string, value: number): Promise<{ id: string }> {
  const [me] = await rest<{ id: string }[]>('GET', `/rest/v1/profiles?select=id&email=eq.${encodeURIComponent(process.env.CONSOLE_OWNER_EMAIL!)}`);
  const [contact] = await rest<{ id: string }[]>('POST', '/rest/v1/contacts', { first_name: 'Kanban', last_name: title });
  const [deal] = await rest<{ id: string }[]>('POST', '/rest/v1/deals', { title, value, currency: 'USD', contact_id: contact.id, owner_id: me.id });
  return deal;
}

const column = (page: Page, stage: string) => page.getByRole('region', { name: new RegExp(`^${stage}\\b`) });
const card = (scope: Page | Locator, title: string) => scope.getByRole('article').filter({ hasText: title });

// dnd-kit's pointer sensor starts past 8 px: press on the card's title, move a little, then to the column.
async function drag(page: Page, from: Locator, to: Locator): Promise<void> {
  const source = (await from.getByRole('heading').boundingBox())!;
  const target = (await to.boundingBox())!;
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  await page.mouse.move(source.x + source.width / 2 + 12, source.y + source.height / 2 + 4, { steps: 3 });
  await page.mouse.move(target.x + target.width / 2, target.y + 120, { steps: 12 });
  await page.mouse.up();
}

test('should show a column per stage of the default pipeline with its count and total', async ({ page }, testInfo) => {
  await newDeal('Board Fleet renewal', 1200);
  await page.goto(`${base()}/app/deals`);
  await expect(page.getByLabel('Pipeline')).toHaveValue(/.+/);
  for (const stage of ['Deal', 'Qualified', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost']) await expect(column(page, stage)).toBeVisible();
  const lead = column(page, 'Deal');
  await expect(card(lead, 'Board Fleet renewal')).toBeVisible();
  await expect(card(lead, 'Board Fleet renewal')).toContainText('$1,200');
  await expect(card(lead, 'Board Fleet renewal')).toContainText('Kanban Board Fleet renewal');
  await expect(lead).toHaveAccessibleName(/^Deal \d+ deals?, /);
  await checkPage(page, 'deals-board', testInfo);
});

test('should move a dragged deal to another column through the API, with the stage probability, and keep it after a reload', async ({ page }) => {
  await newDeal('Pointer Drag Deal', 500);
  await page.goto(`${base()}/app/deals`);
  const moving = card(column(page, 'Deal'), 'Pointer Drag Deal');
  await expect(moving).toBeVisible();
  await drag(page, moving, column(page, 'Proposal'));
  await expect(card(column(page, 'Proposal'), 'Pointer Drag Deal')).toBeVisible();
  await expect(card(column(page, 'Deal'), 'Pointer Drag Deal')).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Pointer Drag Deal moved to Proposal' })).toContainText('probability 50 %');
  await expect(card(column(page, 'Proposal'), 'Pointer Drag Deal')).toContainText('50 %');
  await page.reload();
  await expect(card(column(page, 'Proposal'), 'Pointer Drag Deal')).toBeVisible();
  await expect(card(column(page, 'Deal'), 'Pointer Drag Deal')).toHaveCount(0);
});

test('should move a deal with the keyboard and announce it', async ({ page }) => {
  const deal = await newDeal('Keyboard Move Deal', 300);
  await page.goto(`${base()}/app/deals`);
  const moving = card(column(page, 'Deal'), 'Keyboard Move Deal');
  await moving.focus();
  await page.keyboard.press('Space');
  await expect(page.getByText(/^Deal Keyboard Move Deal is over Deal\.$/)).toBeAttached();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByText(/^Deal Keyboard Move Deal is over Qualified\.$/)).toBeAttached();
  // Each step announced before the next key: a busy machine could otherwise drop the card where
  // a move had not landed yet.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByText(/^Deal Keyboard Move Deal is over Proposal\.$/)).toBeAttached();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByText(/^Deal Keyboard Move Deal is over Qualified\.$/)).toBeAttached();
  await page.keyboard.press('Space');
  await expect(card(column(page, 'Qualified'), 'Keyboard Move Deal')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Keyboard Move Deal moved to Qualified' })).toContainText('probability 25 %');
  await expect
    .poll(async () => (await rest<{ stage: string; probability: number }[]>('GET', `/rest/v1/deals?select=stage,probability&id=eq.${deal.id}`))[0])
    .toEqual({ stage: 'QUALIFIED', probability: 25 });

  // Escape cancels: the card stays where it is.
  await card(column(page, 'Qualified'), 'Keyboard Move Deal').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Escape');
  await expect(page.getByText(/^Moving deal Keyboard Move Deal was cancelled/)).toBeAttached();
  await expect(card(column(page, 'Qualified'), 'Keyboard Move Deal')).toBeVisible();
});

test('should put the card back and say why when the API refuses the move', async ({ page }, testInfo) => {
  await newDeal('Refused Move Deal', 700);
  await page.goto(`${base()}/app/deals`);
  // The API refuses a stage its pipeline does not have: the request is sent with one.
  await page.route('**/functions/v1/deals/*/move', (route) => route.continue({ postData: JSON.stringify({ stage: 'ARCHIVED' }) }));
  await drag(page, card(column(page, 'Deal'), 'Refused Move Deal'), column(page, 'Negotiation'));
  const alert = page.getByRole('alert').filter({ hasText: 'Refused Move Deal could not be moved to Negotiation' });
  await expect(alert).toContainText('unknown stage "ARCHIVED"');
  await expect(alert).toContainText('is back in Deal');
  await expect(card(column(page, 'Deal'), 'Refused Move Deal')).toBeVisible();
  await expect(card(column(page, 'Negotiation'), 'Refused Move Deal')).toHaveCount(0);
  await checkPage(page, 'deals-move-refused', testInfo);
  await page.unroute('**/functions/v1/deals/*/move');
  await page.reload();
  await expect(card(column(page, 'Deal'), 'Refused Move Deal')).toBeVisible();
});

test("should show another member's move without a reload: on returning to the window, and every 15 s", async ({ page }) => {
  const deal = await newDeal('Moved Elsewhere Deal', 400);
  await page.clock.install();
  await page.goto(`${base()}/app/deals`);
  await expect(card(column(page, 'Deal'), 'Moved Elsewhere Deal')).toBeVisible();
  await rest('POST', `/functions/v1/deals/${deal.id}/move`, { stage: 'PROPOSAL' });
  // Back to the tab (TanStack Query's focus manager listens for visibilitychange).
  await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
  await expect(card(column(page, 'Proposal'), 'Moved Elsewhere Deal')).toBeVisible();
  await expect(card(column(page, 'Deal'), 'Moved Elsewhere Deal')).toHaveCount(0);
  await rest('POST', `/functions/v1/deals/${deal.id}/move`, { stage: 'NEGOTIATION' });
  await page.clock.fastForward(16_000);
  await expect(card(column(page, 'Negotiation'), 'Moved Elsewhere Deal')).toBeVisible();
  await expect(card(column(page, 'Proposal'), 'Moved Elsewhere Deal')).toHaveCount(0);
});

test('should say why when the deal was deleted meanwhile', async ({ page }) => {
  const deal = await newDeal('Deleted Meanwhile Deal', 100);
  await page.goto(`${base()}/app/deals`);
  await expect(card(column(page, 'Deal'), 'Deleted Meanwhile Deal')).toBeVisible();
  await rest('DELETE', `/rest/v1/deals?id=eq.${deal.id}`);
  await drag(page, card(column(page, 'Deal'), 'Deleted Meanwhile Deal'), column(page, 'Qualified'));
  await expect(page.getByRole('alert').filter({ hasText: 'Deleted Meanwhile Deal could not be moved to Qualified' })).toContainText('not found');
  await expect(card(column(page, 'Qualified'), 'Deleted Meanwhile Deal')).toHaveCount(0);
});

test('should show a deal with its stage history and owner history', async ({ page }, testInfo) => {
  const deal = await newDeal('History Deal', 900);
  await rest('POST', `/functions/v1/deals/${deal.id}/move`, { stage: 'NEGOTIATION' });
  await page.goto(`${base()}/app/deals`);
  await card(column(page, 'Negotiation'), 'History Deal').getByRole('link', { name: 'Details of History Deal' }).click();
  await expect(page).toHaveURL(new RegExp(`/app/deals\\?deal=${deal.id}$`));
  await expect(page.getByRole('heading', { name: 'History Deal', level: 2 })).toBeVisible();
  const stages = page.getByRole('table', { name: 'Stage history' });
  await expect(stages.getByRole('row')).toHaveCount(3);
  await expect(stages.getByRole('row').nth(2)).toContainText(/Deal\s*Negotiation/);
  const owners = page.getByRole('table', { name: 'Owner history' });
  await expect(owners).toContainText('Initial assignment');
  await expect(page.getByText('75 %')).toBeVisible();
  await checkPage(page, 'deal-details', testInfo);
});

test("should show the cards of a long column past the board's first 100", async ({ page }) => {
  await rest(
    'POST',
    '/rest/v1/deals',
    Array.from({ length: 101 }, (_, i) => ({ title: `Bulk lost ${i}`, value: 1, stage: 'CLOSED_LOST' })),
  );
  await page.goto(`${base()}/app/deals`);
  const lost = column(page, 'Closed Lost');
  await expect(lost).toHaveAccessibleName(/^Closed Lost 101 deals, /);
  await expect(lost.getByRole('article')).toHaveCount(100);
  await lost.getByRole('button', { name: 'Show more (1 not shown)' }).click();
  await expect(lost.getByRole('article')).toHaveCount(101);
  await expect(card(lost, 'Bulk lost 100')).toBeVisible();
  await expect(lost.getByRole('button', { name: /Show more/ })).toHaveCount(0);
});
