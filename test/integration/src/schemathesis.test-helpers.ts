/**
 * Schemathesis (PyPI, pinned in scripts/schemathesis-requirements.txt, installed into a machine-wide cache by
 * scripts/ensure-schemathesis.sh) run
 * against a service's `GET /openapi.json`, and its JSON run report read back.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeTempDir } from '@anchor/testing/process';

const ENSURE_SCRIPT = fileURLToPath(new URL('../../../scripts/ensure-schemathesis.sh', import.meta.url));

/**
 * What the runs check, each meaningful for these services: no 5xx (`not_a_server_error`); every status,
 * Content-Type, declared response header and response body is the one the route table documents. Left out:
 * `positive_data_acceptance` / `negative_data_rejection` (the documented schemas give a request's shape, the
 * handlers check more, e.g. DID syntax, and name it in a 400), `unsupported_method` (an unrouted method is the
 * kit's 404 `no route for ...`, not 405), `ignored_auth` (it cannot express "a token or a signature", nor
 * routes that show public items to anyone), and the stateful checks, which need DELETE routes there are none of.
 */
export const FUZZ_CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
];

/** The schemathesis executable, installed by scripts/ensure-schemathesis.sh on first use (under a minute). */
export async function schemathesisBinary(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [ENSURE_SCRIPT], {
    timeout: 10 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const binary = stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(binary))
    throw new Error(`schemathesis: ${ENSURE_SCRIPT} printed no executable path (got ${JSON.stringify(stdout)})`);
  return binary;
}

/** The parts of schemathesis's JSON run report (`--report json`) the tests read. */
export interface SchemathesisReport {
  schemathesis_version: string;
  seed: number;
  running_time: number;
  exit_code: number;
  operations: { total: number; selected: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  errors: unknown[];
  warnings: { missing_test_data?: string[]; missing_auth?: string[] };
}

export interface FuzzRun {
  report: SchemathesisReport;
  /** Failures of `not_a_server_error` (ST101): 5xx answers. */
  serverErrors: number;
  /** Failures of the other checks (an undocumented status, Content-Type, header or body). */
  otherFailures: number;
  /** Schemathesis's own console output, for the failure message. */
  output: string;
}

export interface FuzzOptions {
  seed: number;
  maxExamples: number;
  /** Sent with every request (e.g. a bearer token the service was started with). */
  headers?: Record<string, string>;
  /**
   * Realistic values by parameter (`path.alias`, `query.page`): each request takes one of them with
   * probability 0.7 and a generated value otherwise, so requests reach existing resources without losing
   * the fuzzing of those parameters.
   */
  knownValues?: Record<string, readonly string[]>;
  /**
   * Paths left out of the run: a Server-Sent Events stream answers 200 and then stays open by design, so every
   * example would wait out the request timeout; such routes are tested by their own suites.
   */
  excludePaths?: readonly string[];
}

/** A schemathesis.toml binding each parameter of `knownValues` to a dictionary of its values. */
function configToml(knownValues: Record<string, readonly string[]>): string {
  const entries = Object.entries(knownValues).map(([parameter, values], index) => ({
    parameter,
    values,
    name: `known${index}`,
  }));
  return [
    ...entries.flatMap(({ name, values }) => [`[dictionaries.${name}]`, `values = ${JSON.stringify(values)}`, '']),
    '[parameters]',
    ...entries.map(
      ({ parameter, name }) => `${JSON.stringify(parameter)} = { dictionary = "${name}", probability = 0.7 }`,
    ),
    '',
  ].join('\n');
}

/** Runs schemathesis against `<url>/openapi.json` with a fixed seed and no example database, one worker. */
export async function fuzzOpenApi(binary: string, url: string, options: FuzzOptions): Promise<FuzzRun> {
  const work = await makeTempDir('anchor-schemathesis-');
  try {
    const reportFile = join(work.path, 'report.json');
    const configFile = join(work.path, 'schemathesis.toml');
    writeFileSync(configFile, configToml(options.knownValues ?? {}));
    const args = [
      '--config-file',
      configFile,
      'run',
      `${url}/openapi.json`,
      '--seed',
      String(options.seed),
      '--max-examples',
      String(options.maxExamples),
      '--generation-database',
      'none',
      '--checks',
      FUZZ_CHECKS.join(','),
      '--continue-on-failure',
      '--workers',
      '1',
      '--request-timeout',
      '20',
      '--no-color',
      '--report',
      'json',
      '--report-json-path',
      reportFile,
      ...(options.excludePaths ?? []).flatMap((path) => ['--exclude-path', path]),
      ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
    ];
    // Exit 1 means failures, which the report lists; only a missing report is the run's own failure.
    const output = await new Promise<string>((resolve) => {
      execFile(
        binary,
        args,
        { cwd: work.path, timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    if (!existsSync(reportFile)) throw new Error(`schemathesis wrote no report:\n${output}`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as SchemathesisReport;
    const count = (failures: SchemathesisReport['failures']): number =>
      failures.reduce((sum, failure) => sum + failure.count, 0);
    const serverErrors = count(report.failures.filter((failure) => failure.code === 'ST101'));
    return { report, serverErrors, otherFailures: count(report.failures) - serverErrors, output };
  } finally {
    await work.remove();
  }
}

/** One line per service for the test output: what was tried and what was found. */
export function describeRun(service: string, run: FuzzRun): string {
  const { report } = run;
  return (
    `schemathesis ${report.schemathesis_version} ${service}: ${report.operations.tested}/${report.operations.total} operations, ` +
    `${report.test_cases.generated} examples tried (seed ${report.seed}), server errors ${run.serverErrors}, ` +
    `other failures ${run.otherFailures}, in ${report.running_time.toFixed(1)} s; ` +
    `only 404: ${report.warnings.missing_test_data?.join(', ') || 'none'}; only 401/403: ${report.warnings.missing_auth?.join(', ') || 'none'}`
  );
}
