import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';

const SECTIONS = ['Inbox', 'Contacts', 'Companies', 'Deals', 'Dashboards', 'Automation', 'Campaigns', 'Settings'];

test('should show every navigation link and open each page from it', async ({ page }, testInfo) => {
  // Six pages, each screenshotted twice and checked by axe.
  test.setTimeout(90_000);
  await page.goto(`${process.env.CONSOLE_BASE_URL}/app/`);
  const navigation = page.getByRole('navigation', { name: 'Main' });
  for (const name of SECTIONS) await expect(navigation.getByRole('link', { name, exact: true })).toBeVisible();
  for (const name of SECTIONS) {
    await navigation.getByRole('link', { name, exact: true }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(navigation.getByRole('link', { name, exact: true })).toHaveAttribute('aria-current', 'page');
    await checkPage(page, name.toLowerCase(), testInfo);
  }
});

test('should show the profile read from the API on Settings', async ({ page }) => {
  await page.goto(`${process.env.CONSOLE_BASE_URL}/app/settings`);
  await expect(page.getByLabel('Email')).toHaveValue(process.env.CONSOLE_OWNER_EMAIL!);
  await expect(page.getByText('Role: OWNER')).toBeVisible();
});

test('should list contacts from the API with their names in their own direction', async ({ page }) => {
  await page.goto(`${process.env.CONSOLE_BASE_URL}/app/contacts`);
  // Searched for: other tests of the run (the CSV import) add contacts ahead of them in the list.
  const search = page.getByLabel('Search contacts');
  await search.fill('حداد');
  const arabic = page.getByRole('cell', { name: 'ليلى حداد' });
  await expect(arabic).toBeVisible();
  await expect(arabic).toHaveAttribute('dir', 'auto');
  await search.fill('Souza');
  await expect(page.getByRole('cell', { name: 'Maria Souza' })).toBeVisible();
});

test('should open a deep link directly and reach the page with the keyboard', async ({ page }) => {
  await page.goto(`${process.env.CONSOLE_BASE_URL}/app/contacts`);
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
});
