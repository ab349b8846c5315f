import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';

// Contacts and companies (issue 35, item 5): search as you type, tag filter, create and edit with
// the API's messages next to the fields, details with the timeline, CSV import with its progress
// and per-row result, CSV export, the companies' duplicate finder and merge.
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

async function create<T>(table: string, row: unknown): Promise<T> {
  const response = await fetch(`${base()}/rest/v1/${table}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ownerToken()}`, 'content-type': 'application/json', prefer: 'return=representation' },
    body: JSON.stringify(row),
  });
  if (!response.ok) throw new Error(`creating ${table} failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as T[])[0];
}

test.beforeAll(async () => {
  await create('contacts', { first_name: 'Zanele', last_name: 'Searchwood', phones: ['+27821234567'], tags: ['search-test'] });
  await create('contacts', { first_name: 'Quentin', last_name: 'Searchwood', phones: ['+33612345678'], tags: ['search-test', 'partner'] });
  await create('contacts', { first_name: 'يوسف', last_name: 'Searchwood', phones: ['+971501234567'] });
});

test('should filter contacts as the search is typed, by name or phone, and by tag', async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/contacts`);
  const search = page.getByRole('searchbox', { name: 'Search contacts' });
  await expect(page.getByRole('link', { name: 'Zanele Searchwood' })).toBeVisible();
  await checkPage(page, 'contacts', testInfo);

  await search.pressSequentially('Searchw', { delay: 40 });
  await expect(page.getByRole('link', { name: 'Zanele Searchwood' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Quentin Searchwood' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'يوسف Searchwood' })).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(4);

  await search.pressSequentially('ood Zan', { delay: 40 });
  await expect(page.getByRole('status').filter({ hasText: 'No contacts match.' })).toBeVisible();
  await search.fill('');
  await search.pressSequentially('Quen', { delay: 40 });
  await expect(page.getByRole('link', { name: 'Quentin Searchwood' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Zanele Searchwood' })).toHaveCount(0);

  // A phone number in another written form (national digits with spaces) finds its contact.
  await search.fill('');
  await search.pressSequentially('82 123 45', { delay: 40 });
  await expect(page.getByRole('link', { name: 'Zanele Searchwood' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Quentin Searchwood' })).toHaveCount(0);

  await search.fill('Searchwood');
  await page.getByLabel('Tag').selectOption('partner');
  await expect(page.getByRole('link', { name: 'Quentin Searchwood' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Zanele Searchwood' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'يوسف Searchwood' })).toHaveCount(0);
});

test("should create a contact showing the API's message next to the field, then edit it and show its timeline", async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/contacts`);
  await page.getByRole('button', { name: 'New contact' }).click();
  await expect(page.getByRole('heading', { name: 'New contact' })).toBeVisible();
  await page.getByLabel('First name').fill('Form');
  await page.getByLabel('Last name').fill('Validation');
  await page.getByLabel('Phones').fill('not a phone');
  await page.getByRole('button', { name: 'Create contact' }).click();
  const phones = page.getByLabel('Phones');
  await expect(phones).toHaveAttribute('aria-invalid', 'true');
  await expect(phones).toHaveAccessibleDescription(/is not a valid phone number/);
  await expect(page.getByRole('alert')).toContainText('"not a phone" is not a valid phone number');
  await checkPage(page, 'contact-form-refused', testInfo);

  await page.getByLabel('First name').fill('');
  await phones.fill('+2348031234567');
  await page.getByRole('button', { name: 'Create contact' }).click();
  await expect(page.getByLabel('First name')).toHaveAccessibleDescription(/first_name is required/);

  await page.getByLabel('First name').fill('Form');
  await page.getByLabel('Tags').fill('new; lead');
  await page.getByRole('button', { name: 'Create contact' }).click();
  await expect(page.getByRole('heading', { name: 'Form Validation', level: 2 })).toBeVisible();
  await expect(page.getByText('+2348031234567')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Timeline' })).toBeVisible();

  await page.getByRole('button', { name: 'Edit contact' }).click();
  await page.getByLabel('Last name').fill('Validated');
  await page.getByRole('button', { name: 'Save contact' }).click();
  await expect(page.getByRole('heading', { name: 'Form Validated', level: 2 })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('listitem').first()).toBeVisible({ timeout: 10_000 });
  await checkPage(page, 'contact-details', testInfo);
});

test('should import a CSV file with a progress bar and the result of each row, and export the contacts', async ({ page }, testInfo) => {
  test.setTimeout(60_000);
  // 1,500 rows: line 3 has no first name, line 4 a bad phone; the others are new people.
  const rows = ['first_name,last_name,phones,tags'];
  for (let i = 0; i < 1500; i++) {
    if (i === 1) rows.push(',Nameless,+201001110002,import');
    else if (i === 2) rows.push('Bad,Phone,12,import');
    else rows.push(`Imported${i},Person,+2010022${String(i).padStart(5, '0')},import`);
  }
  await page.goto(`${base()}/app/contacts`);
  await page.getByRole('button', { name: 'Import CSV' }).click();
  await expect(page.getByRole('heading', { name: 'Import contacts from CSV' })).toBeVisible();
  await page.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
  await page.getByRole('button', { name: 'Import' }).click();
  const progress = page.getByRole('progressbar', { name: 'Import progress' });
  await expect(progress).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Import completed' })).toContainText('1,500 rows processed, 1,498 created, 0 updated, 2 failed', {
    timeout: 30_000,
  });
  await expect(progress).toHaveAttribute('value', '100');
  const results = page.getByRole('table', { name: 'Result per row' });
  await expect(results.getByRole('row').filter({ hasText: 'Nameless' })).toContainText('Failed: first_name is required');
  await expect(results.getByRole('row').filter({ hasText: 'Nameless' }).getByRole('cell').first()).toHaveText('3');
  await expect(results.getByRole('row').filter({ hasText: 'Bad' })).toContainText('Failed: "12" is not a valid phone number');
  await expect(results.getByRole('row').filter({ hasText: 'Imported0' })).toContainText('Imported');
  await checkPage(page, 'contacts-import', testInfo);

  await page.getByRole('link', { name: 'Back to contacts' }).click();
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill('Imported1499');
  await expect(page.getByRole('link', { name: 'Imported1499 Person' })).toBeVisible();

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await (await download).path();
  const csv = readFileSync(file, 'utf8');
  expect(csv.split('\n')[0]).toContain('first_name');
  expect(csv).toContain('Imported1499,Person');
});

test('should find duplicate companies and merge them', async ({ page }, testInfo) => {
  const kept = await create<{ id: string }>('companies', { name: 'Duplo Trading Inc', website: 'https://duplo.example', country: 'KE' });
  await create('companies', { name: 'DUPLO TRADING LTD', website: 'http://www.duplo.example/about', industry: 'Wholesale' });
  await create('contacts', { first_name: 'Moved', last_name: 'Along', company_id: kept.id });
  await page.goto(`${base()}/app/companies`);
  await expect(page.getByRole('link', { name: 'Duplo Trading Inc' })).toBeVisible();
  await checkPage(page, 'companies-list', testInfo);
  await page.getByRole('button', { name: 'Find duplicates' }).click();
  const group = page.getByRole('group', { name: /Duplo Trading Inc/ });
  await expect(group).toContainText('same website domain duplo.example');
  await checkPage(page, 'companies-duplicates', testInfo);
  await group.getByRole('radio', { name: /Duplo Trading Inc/ }).check();
  await group.getByRole('button', { name: 'Merge 1 into Duplo Trading Inc' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Merged 1 company into Duplo Trading Inc' })).toBeVisible();
  await page.getByRole('link', { name: 'Back to companies' }).click();
  await expect(page.getByRole('link', { name: 'DUPLO TRADING LTD' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Duplo Trading Inc' }).click();
  await expect(page.getByRole('heading', { name: 'Duplo Trading Inc', level: 2 })).toBeVisible();
  await expect(page.getByText('Wholesale')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Moved Along' })).toBeVisible();
  await checkPage(page, 'company-details', testInfo);
});
