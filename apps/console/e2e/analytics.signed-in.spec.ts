import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expect, type Locator, test } from '@playwright/test';
import { checkPage } from './check-page';
import { base, chatAppInbound, conversations, createChannel, eventually, type Owner, setProviderKey, signInOwner } from './inbox-setup';

// Analytics on the Dashboards page (issue 38 item 1): charts of the reporting endpoints with the
// values the API answers for seeded data, each chart's table, and the CSV exports.

async function api<T>(owner: Owner, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${base()}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', prefer: 'return=representation' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

// The table's rows as [header cell, ...cells], read from the page.
const tableRows = (table: Locator) =>
  table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children, (cell) => (cell.textContent ?? '').trim())));
const plain = (text: string) => Number(text.replace(/[^\d.-]/g, ''));

// The seeded deals are removed afterwards: other tests count the default pipeline's columns.
const seededDeals: { owner: Owner; id: string }[] = [];
test.afterEach(async () => {
  for (const { owner, id } of seededDeals.splice(0))
    await fetch(`${base()}/rest/v1/deals?id=eq.${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } });
});

test('should chart the reporting figures of seeded data with tables that match the API and CSV exports', async ({ page }, testInfo) => {
  const owner = await signInOwner();
  const run = randomBytes(3).toString('hex');
  // Seed: three customers' messages today, and deals: two open in Qualified, one won, one lost.
  const chat = await createChannel(owner, { kind: 'chat_app', name: `Analytics line ${run}` });
  for (let index = 0; index < 3; index += 1) {
    await chatAppInbound(chat, {
      type: 'message',
      id: `wamid.analytics-${run}-${index}`,
      from: `2011${Math.floor(10_000_000 + Math.random() * 89_999_999)}@s.whatsapp.net`,
      name: `Analytics ${run} ${index}`,
      text: `Question ${index}`,
    });
  }
  const seeded = await eventually(async () => {
    const found = (await conversations(owner)).filter((item) => item.channel_account_id === chat.id);
    return found.length === 3 ? found : undefined;
  }, 'three conversations');
  // One of them answered by an agent, so today has a response time and an SLA figure.
  setProviderKey(owner.organizationId);
  await api(owner, `/functions/v1/messaging/conversations/${seeded[0].id}/reply`, { method: 'POST', body: { message: 'Happy to help.' } });
  const deal = async (title: string, value: number, stage: string) => {
    const [created] = await api<{ id: string }[]>(owner, '/rest/v1/deals', { method: 'POST', body: { title: `${title} ${run}`, value, currency: 'USD' } });
    seededDeals.push({ owner, id: created.id });
    await api(owner, `/functions/v1/deals/${created.id}/move`, { method: 'POST', body: { stage } });
  };
  await deal('Qualified one', 1200, 'QUALIFIED');
  await deal('Qualified two', 350.5, 'QUALIFIED');
  await deal('Won', 900, 'CLOSED_WON');
  await deal('Lost', 100, 'CLOSED_LOST');

  await page.goto(`${base()}/app/dashboards`);
  await page.getByRole('navigation', { name: 'Dashboards' }).getByRole('link', { name: 'Analytics' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
  await page.getByLabel('Period', { exact: true }).selectOption('7');
  const period = await page.getByText(/^\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}, compared/).textContent();
  const [, start, end] = /^(\S+) to (\S+),/.exec(period!)!;

  // What the API answers for the same period, read by the test itself.
  const metrics = await api<{
    metrics: { total_messages: number };
    series: { date: string; total_messages: number; average_response_time: string | null; sla_compliance: number | null }[];
  }>(owner, `/rest/v1/analytics/metrics?start_date=${start}&end_date=${end}&group_by=day`);
  expect(metrics.series).toHaveLength(7);
  expect(metrics.series[6].total_messages).toBeGreaterThanOrEqual(3);

  const messages = page.getByRole('table', { name: 'Messages per day' });
  await expect(messages.locator('tbody tr')).toHaveCount(7);
  expect(await tableRows(messages)).toEqual(metrics.series.map((day) => [day.date, day.total_messages.toLocaleString('en-US')]));
  // The chart: one bar per day with a value, the bar of today as high as today's count.
  const bars = page.getByRole('img', { name: /^Messages per day: chart/ }).locator('rect');
  await expect(bars).toHaveCount(7);
  await expect(bars.nth(6)).toHaveAttribute('data-value', String(metrics.series[6].total_messages));
  await expect(page.getByText(`${metrics.metrics.total_messages.toLocaleString('en-US')} messages in the period`)).toBeVisible();
  // Response time per day: hours with two decimals as the API gives them; today's is there.
  expect(metrics.series[6].average_response_time).not.toBeNull();
  const responses = await tableRows(page.getByRole('table', { name: 'Response time per day' }));
  expect(responses.map((row) => row[1])).toEqual(metrics.series.map((day) => (day.average_response_time === null ? '—' : `${day.average_response_time} h`)));
  // SLA per day: days without a judged message are a dash, and have no point on the line.
  const sla = await tableRows(page.getByRole('table', { name: 'SLA compliance per day' }));
  expect(sla.map((row) => row[1])).toEqual(metrics.series.map((day) => (day.sla_compliance === null ? '—' : `${day.sla_compliance} %`)));
  await expect(page.getByRole('img', { name: /^SLA compliance per day: chart/ }).locator('circle')).toHaveCount(
    metrics.series.filter((day) => day.sla_compliance !== null).length,
  );

  // Pipeline value by stage: the board's totals of the default pipeline, and the report's counts.
  const deals = await api<{ deals_metrics: { stage_distribution: Record<string, number>; conversion_rate: number | null } }>(
    owner,
    `/rest/v1/analytics/deals?start_date=${start}&end_date=${end}`,
  );
  const stages = await tableRows(page.getByRole('table', { name: 'Pipeline value by stage' }));
  const qualified = stages.find((row) => row[0] === 'Qualified')!;
  expect(plain(qualified[1])).toBeGreaterThanOrEqual(1550.5);
  expect(Number(qualified[3])).toBe(deals.deals_metrics.stage_distribution.Qualified);
  const pipelines = await api<{ id: string }[]>(owner, '/rest/v1/pipelines?select=id&is_default=eq.true');
  const board = await api<{ stages: { name: string; total_value: number | string }[] }>(
    owner,
    `/functions/v1/deals/board?pipeline_id=${pipelines[0].id}&limit=1`,
  );
  expect(stages.map((row) => [row[0], plain(row[1])])).toEqual(board.stages.map((stage) => [stage.name, Number(stage.total_value)]));
  // Conversion: the period's rate as the report gives it (at least one won and one lost today).
  expect(deals.deals_metrics.conversion_rate).not.toBeNull();
  await expect(page.getByText(`${deals.deals_metrics.conversion_rate} % of the deals closed in the period were won`)).toBeVisible();
  const conversion = await tableRows(page.getByRole('table', { name: 'Conversion per day' }));
  expect(Number(conversion[6][2])).toBeGreaterThanOrEqual(1);
  expect(Number(conversion[6][3])).toBeGreaterThanOrEqual(1);

  // The CSV exports: the API's own daily series, and the stages written by the page.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Messages per day (CSV)' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split(/\r?\n/);
  expect(csv[0]).toBe('date,total_messages');
  expect(csv.slice(1)).toEqual(metrics.series.map((day) => `${day.date},${day.total_messages}`));
  const [stageDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download Pipeline value by stage (CSV)' }).click(),
  ]);
  const stageCsv = readFileSync((await stageDownload.path())!, 'utf8')
    .trim()
    .split(/\r?\n/);
  expect(stageCsv[0]).toBe('stage,total_value,deal_count');
  expect(stageCsv).toContain(`Qualified,${plain(qualified[1])},${qualified[2]}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await checkPage(page, 'dashboards-analytics', testInfo);

  // A custom range the API refuses (the end before the start): its own message, in role=alert.
  await page.getByLabel('Period', { exact: true }).selectOption('custom');
  await page.getByLabel('From').fill(end);
  await page.getByLabel('To').fill(start);
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page.getByRole('alert').first()).toContainText('end_date');
});
