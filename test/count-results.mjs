// Sums vitest JSON reports into the closing line CI reads: `N passed, N failed`.
// A missing or unreadable report counts as a failure: a run that produced nothing proved nothing.
// The failures are listed just above that line, since a CI log may keep only its tail; so are each
// step's time, the slowest test files and the guest boots found stuck, which explain a slow run.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const steps = [];
const files = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  try {
    const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites;
    const ends = (report.testResults ?? []).map((suite) => suite.endTime).filter(Number.isFinite);
    if (ends.length > 0) steps.push({ at: report.startTime, text: `${file.replace(/\.json$/, '')} ${seconds(Math.max(...ends) - report.startTime)}` });
    for (const suite of report.testResults ?? []) {
      const where = `${file.replace(/\.json$/, '')}: ${suite.name.replace(/^.*?\/test\//, 'test/')}`;
      if (Number.isFinite(suite.endTime - suite.startTime)) files.push({ where, ms: suite.endTime - suite.startTime });
      const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failedTests) failures.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
      if (suite.status === 'failed' && failedTests.length === 0) failures.push(`${where}: ${firstLine(suite.message)}`);
    }
  } catch (err) {
    console.error(`unreadable test report ${file}: ${err.message}`);
    failed += 1;
  }
}
function seconds(ms) {
  return `${Math.round(ms / 1000)} s`;
}
function firstLine(text) {
  return (text ?? '').split('\n')[0].slice(0, 300);
}

// The guest harness writes a dump for each boot it found stuck and made again (test/guest/harness/boot-dump.ts).
const stuckBoots = readdirSync(dir).filter((f) => f.startsWith('stuck-boot-')).length;
console.log(
  `steps: ${steps
    .sort((a, b) => a.at - b.at)
    .map((step) => step.text)
    .join(' · ')}`,
);
const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, 3);
console.log(`slowest files: ${slowest.map((f) => `${f.where} ${seconds(f.ms)}`).join(' · ')}`);
if (stuckBoots > 0) console.log(`guest boots found stuck and made again: ${stuckBoots} (dumps in ${dir})`);

const shown = 30;
for (const failure of failures.slice(0, shown)) console.log(`FAILED ${failure}`);
if (failures.length > shown) console.log(`… and ${failures.length - shown} more failures`);
console.log(skipped > 0 ? `${passed} passed, ${failed} failed, ${skipped} skipped` : `${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
