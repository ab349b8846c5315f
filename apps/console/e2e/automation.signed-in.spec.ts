import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { checkPage } from './check-page';
import { base, chatAppInbound, conversation, conversations, createChannel, eventually, signInOwner } from './inbox-setup';

test('should create a rule in the editor with the API refusal in place, trigger it, find its run and test it against the message', async ({
  page,
}, testInfo) => {
  const owner = await signInOwner();
  const run = randomBytes(3).toString('hex');
  const chat = await createChannel(owner, { kind: 'chat_app', name: `Rules line ${run}` });

  await page.goto(`${base()}/app/automation`);
  await page.getByRole('button', { name: 'New rule' }).click();
  await page.getByLabel('Name').fill(`Tag pricing questions ${run}`);
  await page.getByLabel('Event').selectOption('message.received');
  await page.getByRole('button', { name: 'Add condition' }).click();
  const first = page.getByRole('group', { name: 'Condition 1' });
  // A deal's field on a message's event: refused by the API, its message shown under Conditions.
  await first.getByLabel('Field').fill('deal.stage');
  await first.getByLabel('Operator').selectOption('equals');
  await first.getByLabel('Value').fill('Won');
  // The actions, one form each: the new rule's message replaced by tags, and a note added.
  await page
    .getByRole('group', { name: /^Action 1:/ })
    .getByLabel('Type')
    .selectOption('add_contact_tags');
  await page.getByLabel('Type of the new action').selectOption('add_note');
  await page.getByRole('button', { name: 'Add action' }).click();
  await page
    .getByRole('group', { name: /^Action 2:/ })
    .getByLabel('Text')
    .fill('Asked about prices.');
  await page.getByRole('button', { name: 'Save rule' }).click();
  await expect(page.getByRole('group', { name: 'Conditions' }).getByRole('alert')).toContainText('conditions.all[0].field');
  await first.getByLabel('Field').fill('message.content');
  await first.getByLabel('Operator').selectOption('contains');
  await first.getByLabel('Value').fill('price');
  // No tags yet: refused by the API, its message inside the action it names.
  await page.getByRole('button', { name: 'Save rule' }).click();
  const tagsAction = page.getByRole('group', { name: 'Action 1: Add tags to the contact' });
  await expect(tagsAction.getByRole('alert')).toContainText('actions[0].tags');
  await expect(page.getByRole('group', { name: /^Action 2:/ }).getByRole('alert')).toHaveCount(0);
  await tagsAction.getByLabel('Tags (comma-separated)').fill(`pricing-${run}`);
  await page.getByRole('button', { name: 'Save rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Rule saved.' })).toBeVisible();
  await expect(page).toHaveURL(/\/app\/automation\/rules\/[0-9a-f-]{36}$/);

  await chatAppInbound(chat, {
    type: 'message',
    id: `wamid.rule-${run}`,
    from: `2010${Math.floor(10_000_000 + Math.random() * 89_999_999)}@s.whatsapp.net`,
    name: `Rule ${run}`,
    text: 'What is the price of the blue one?',
  });
  const found = await eventually(async () => (await conversations(owner)).find((item) => item.channel_account_id === chat.id), 'the conversation');
  const messageId = await eventually(async () => (await conversation(owner, found.id)).messages?.[0]?.id, 'the message');
  // The run log asks again every 10 s; a reload shows it at once.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('table', { name: 'Runs' })).toContainText('succeeded', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole('table', { name: 'Runs' })).toContainText('add_contact_tags: succeeded');
  await expect(page.getByRole('table', { name: 'Runs' })).toContainText('add_note: succeeded');

  await page.getByLabel('Record id').fill(messageId);
  await page.getByRole('button', { name: 'Test rule' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'The conditions hold' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Conditions tested' })).toContainText('What is the price of the blue one?');
  await checkPage(page, 'automation-rule', testInfo);

  await page.getByRole('link', { name: 'Back to rules' }).click();
  const toggle = page.getByRole('checkbox', { name: `Tag pricing questions ${run} active` });
  await expect(toggle).toBeChecked();
  await toggle.uncheck();
  await page.reload();
  await expect(page.getByRole('checkbox', { name: `Tag pricing questions ${run} active` })).not.toBeChecked();
  await checkPage(page, 'automation', testInfo);
});
