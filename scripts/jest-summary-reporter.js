// Writes each Jest run's counts to dist/test-results so scripts/test.mjs can print one total line.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(_contexts, results) {
    const dir = join(__dirname, '..', 'dist', 'test-results');
    mkdirSync(dir, { recursive: true });
    const name = (this.globalConfig.rootDir || 'run').replace(/[^A-Za-z0-9]+/g, '_');
    writeFileSync(
      join(dir, `${name}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = SummaryReporter;
