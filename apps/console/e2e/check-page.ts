import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { OUTPUT } from '../playwright.config';

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

const NARROW = { width: 390, height: 844 };

// Every page: a 1280x800 screenshot under dist/console-tests/screenshots (and one at 390x844 under
// screenshots/narrow), and axe (WCAG 2.1 A and
// AA plus best practices) with no serious or critical violation. axe is evaluated through the
// DevTools protocol, which the page's CSP (no inline script) does not block.
export async function checkPage(page: Page, name: string, testInfo: TestInfo): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(page.getByText(/^Loading .*…$/)).toHaveCount(0);
  await page.screenshot({ path: join(OUTPUT, 'screenshots', `${name}.png`) });
  // And in a phone's window (390x844), to look at; then back to the test's size.
  const size = page.viewportSize();
  await page.setViewportSize(NARROW);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: join(OUTPUT, 'screenshots', 'narrow', `${name}.png`) });
  if (size) await page.setViewportSize(size);
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  const report = JSON.stringify(violations, null, 2);
  mkdirSync(join(OUTPUT, 'axe'), { recursive: true });
  writeFileSync(join(OUTPUT, 'axe', `${name}.json`), report);
  await testInfo.attach(`axe-${name}.json`, { body: report, contentType: 'application/json' });
  const blocking = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(blocking, `axe on ${name}`).toEqual([]);
}
