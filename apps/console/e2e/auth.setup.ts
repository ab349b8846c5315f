import { expect, test as setup } from '@playwright/test';
import { OWNER_STATE } from '../playwright.config';

// Signs the onboarded owner in once through the form; the signed-in tests reuse the stored state.
setup('should sign the owner in and store the session', async ({ page }) => {
  await page.goto(`${process.env.CONSOLE_BASE_URL}/app/sign-in`);
  await page.getByLabel('Email').fill(process.env.CONSOLE_OWNER_EMAIL!);
  await page.getByLabel('Password').fill(process.env.CONSOLE_OWNER_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await page.context().storageState({ path: OWNER_STATE });
});
