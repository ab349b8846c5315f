import { expect, test } from '@playwright/test';
import { mailedLink, subscribe } from './api';
import { checkPage } from './check-page';

const base = () => process.env.CONSOLE_BASE_URL!;

test('should redirect a browser asking for / to the sign-in page of /app/', async ({ page }, testInfo) => {
  await page.goto(`${base()}/`);
  await expect(page).toHaveURL(`${base()}/app/sign-in`);
  await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
  await checkPage(page, 'sign-in', testInfo);
});

test("should show the API's error in an alert when the password is wrong", async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/sign-in`);
  await page.getByLabel('Email').fill(process.env.CONSOLE_OWNER_EMAIL!);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText(/invalid/i);
  await expect(page).toHaveURL(/\/app\/sign-in$/);
  await checkPage(page, 'sign-in-error', testInfo);
});

test('should show the forgotten-password page and confirm a reset request', async ({ page }, testInfo) => {
  await page.goto(`${base()}/app/sign-in`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page.getByRole('heading', { name: 'Reset your password', level: 1 })).toBeVisible();
  await checkPage(page, 'forgot-password', testInfo);
  await page.getByLabel('Email').fill('nobody@console.test');
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('status')).toContainText('nobody@console.test');
});

test('should take a new user from sign-up through onboarding to the inbox', async ({ page }, testInfo) => {
  test.setTimeout(60_000);
  const email = `new-${Date.now()}@console.test`;
  await page.goto(`${base()}/app/sign-in`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect(page.getByRole('heading', { name: 'Create an account', level: 1 })).toBeVisible();
  await checkPage(page, 'sign-up', testInfo);
  await page.getByLabel('First name').fill('Layla');
  await page.getByLabel('Last name').fill('Haddad');
  await page.getByLabel('Organization name').fill('شركة ليلى');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();

  await expect(page.getByRole('heading', { name: 'Check your email', level: 1 })).toBeVisible();
  await checkPage(page, 'check-email', testInfo);

  // The mail client: the link from the dev mailbox, pasted into the console.
  await page.getByLabel('Link from the email').fill(mailedLink(process.env.CONSOLE_DATA_DIR!, email, 'signup'));
  await page.getByRole('button', { name: 'Open link' }).click();

  await expect(page.getByRole('heading', { name: 'Set up your workspace', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Choose a plan' })).toBeVisible();
  await checkPage(page, 'onboarding-plan', testInfo);
  await page.getByRole('radio', { name: /Starter/ }).check();
  await page.getByRole('button', { name: 'Choose plan' }).click();
  await expect(page.getByRole('status')).toContainText('not complete yet');

  // Before the storefront's billing event the step cannot be passed, and the page says why.
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toContainText('no active subscription');
  await checkPage(page, 'onboarding-plan-refused', testInfo);

  const organizationId = await page.evaluate(() => JSON.parse(localStorage.getItem('engage-console-auth')!).user.app_metadata.organization_id as string);
  await subscribe(base(), process.env.CONSOLE_BILLING_SECRET!, organizationId);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Connect channels' })).toBeVisible();
  await checkPage(page, 'onboarding-channels', testInfo);
  await page.getByRole('button', { name: 'Skip for now' }).click();

  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/app\/inbox$/);
  await checkPage(page, 'inbox-new-organization', testInfo);
});

test('should reset a forgotten password from the mailed link opened in the browser', async ({ page }, testInfo) => {
  const email = `reset-${Date.now()}@console.test`;
  const signedUp = await fetch(`${base()}/auth/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'the first password', data: { first_name: 'Reset' } }),
  });
  expect(signedUp.status).toBe(200);
  await page.goto(`${base()}/app/forgot-password`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('status')).toContainText(email);

  // The link points at the API (/auth/v1/verify); a browser is sent on to /app/verify, which opens it.
  const link = mailedLink(process.env.CONSOLE_DATA_DIR!, email, 'recovery');
  expect(new URL(link).pathname).toBe('/auth/v1/verify');
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Choose a new password', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${base()}/app/reset-password`);
  await checkPage(page, 'reset-password', testInfo);
  await page.getByLabel('New password', { exact: true }).fill('the second password');
  await page.getByRole('button', { name: 'Save password' }).click();
  // Signed in with the new session; the account has not chosen a plan yet.
  await expect(page.getByRole('heading', { name: 'Set up your workspace', level: 1 })).toBeVisible();

  // A link works once: opening it again shows the API's reason.
  await page.goto(link);
  await expect(page.getByRole('alert')).toContainText('invalid or has expired');
  await checkPage(page, 'verify-link-used', testInfo);
});
