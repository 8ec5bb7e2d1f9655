#!/usr/bin/env node
// The project's one test command: builds every workspace, runs every workspace's tests through turbo
// (continuing past failures so one red package does not hide another), then prints the totals as the
// plain closing line CI reads: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR,
};
// The AMQP suites and the broker fault test need RabbitMQ: installed (as root, from Debian's packages) and
// started when missing, so `npm ci && npm test` on a fresh machine runs every suite. FerretDB and schemathesis
// are built on first use by the tests that need them (scripts/ensure-*.sh).
const broker = spawnSync('bash', [join(root, 'scripts', 'ensure-rabbitmq.sh')], { cwd: root, env, stdio: 'inherit' });
if (broker.status !== 0) process.exit(broker.status ?? 1);

const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const dirs = [];
for (const pattern of workspaces) {
  if (pattern.endsWith('/*')) {
    const base = join(root, pattern.slice(0, -2));
    for (const name of (await import('node:fs')).readdirSync(base)) dirs.push(join(base, name));
  } else dirs.push(join(root, pattern));
}
for (const dir of dirs) rmSync(join(dir, '.test-results'), { recursive: true, force: true });

const filter = process.argv.slice(2);
const turboArgs = [
  'turbo',
  'run',
  'test',
  '--continue',
  '--concurrency=1',
  '--output-logs=full',
  ...filter.map((f) => `--filter=${f}`),
];
const run = spawnSync('npx', turboArgs, { cwd: root, env, stdio: 'inherit' });

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const dir of dirs) {
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  if (!pkg.scripts?.test) continue;
  const resultFile = join(dir, '.test-results', 'results.json');
  if (!existsSync(resultFile)) {
    if (filter.length === 0 || filter.includes(pkg.name)) missing.push(pkg.name);
    continue;
  }
  const result = JSON.parse(readFileSync(resultFile, 'utf8'));
  passed += result.numPassedTests;
  failed += result.numFailedTests;
  skipped += result.numPendingTests + (result.numTodoTests ?? 0);
  // A suite that fails to load counts as a failure even though it ran no test.
  failed += result.testResults.filter((s) => s.status === 'failed' && s.assertionResults.length === 0).length;
}
if (missing.length > 0) {
  console.error(`no test results from: ${missing.join(', ')} (the run crashed before reporting)`);
  failed += missing.length;
}
if (skipped > 0) console.log(`${skipped} skipped (see notices above for why)`);
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
