import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite } from '@playwright/test/reporter';

// Writes the run's counts where scripts/test.mjs adds up every suite's (as the Jest reporter does).
export default class SummaryReporter implements Reporter {
  private suite?: Suite;

  onBegin(_config: FullConfig, suite: Suite): void {
    this.suite = suite;
  }

  onEnd(result: FullResult): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const test of this.suite?.allTests() ?? []) {
      const outcome = test.outcome();
      if (outcome === 'expected' || outcome === 'flaky') counts.passed += 1;
      else if (outcome === 'skipped') counts.skipped += 1;
      else counts.failed += 1;
    }
    // A run that failed before any test (the api did not start) still counts as a failure.
    if (result.status !== 'passed' && counts.failed === 0) counts.failed = 1;
    const dir = join(__dirname, '..', '..', '..', 'dist', 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'console-browser.json'), JSON.stringify(counts));
  }
}
