import { readFile } from 'node:fs/promises';
import { makeTempDir, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, TestDid, waitPublished } from '../src/testing/index.js';
import {
  executionStatements,
  expectedOutcomeOf,
  implementationStatements,
  type Execution,
  type ExpectedOutcome,
  type ImplementationReport,
  type Statement,
} from './did-core-resolution-assertions.js';
import { startNodeProcess } from './node-process.js';

const RESULT_LD = 'application/ld+json;profile="https://w3id.org/did-resolution"';
const PATHS = ['/sidetree/v1/identifiers', '/1.0/identifiers'];

/** Runs every statement; the failures, named. */
function failuresOf(statements: Statement[]): string[] {
  const failures: string[] = [];
  for (const statement of statements) {
    try {
      statement.check();
    } catch (error) {
      failures.push(`${statement.name}: ${(error as Error).message}`);
    }
  }
  return failures;
}

function statementsOf(report: ImplementationReport): Statement[] {
  return [
    ...implementationStatements(report),
    ...report.executions.flatMap((execution, i) => executionStatements(execution, expectedOutcomeOf(report, i))),
  ];
}

/**
 * One execution over the node's HTTP binding, as a client of the binding reads it: a resolution result (the
 * DID Core 1.0 ld+json profile) gives the metadata and the document, whose representation its `contentType`
 * names (`resolveRepresentation`); a document media type gives the document alone, and an error status its
 * error code. An error is reported as `resolve` output (metadata with `error`, no document), as every
 * implementation report of the suite does: its `resolveRepresentation` statements assume a document.
 */
async function execute(url: string, did: string, accept?: string): Promise<Execution> {
  const response = await fetch(`${url}/${did}`, { headers: { accept: accept ?? RESULT_LD } });
  const body = (await response.json()) as Record<string, any>;
  const input = { did, resolutionOptions: accept === undefined ? {} : { accept } };
  if (accept === undefined) {
    const resolution = body.didResolutionMetadata as Record<string, unknown>;
    if ('error' in resolution)
      return {
        function: 'resolve',
        input,
        output: {
          didResolutionMetadata: resolution,
          didDocument: body.didDocument,
          didDocumentMetadata: body.didDocumentMetadata,
        },
      };
    return {
      function: 'resolveRepresentation',
      input,
      output: {
        didResolutionMetadata: resolution,
        didDocumentStream: JSON.stringify(body.didDocument),
        didDocumentMetadata: body.didDocumentMetadata,
      },
    };
  }
  const errors: Record<number, string> = { 400: 'invalidDid', 404: 'notFound', 501: 'methodNotSupported' };
  const error = errors[response.status];
  if (error !== undefined)
    return {
      function: 'resolve',
      input: { did, resolutionOptions: {} },
      output: { didResolutionMetadata: { error }, didDocument: null, didDocumentMetadata: {} },
    };
  return {
    function: 'resolveRepresentation',
    input,
    output: {
      didResolutionMetadata: { contentType: response.headers.get('content-type')?.split(';')[0] },
      didDocumentStream: JSON.stringify(body),
      didDocumentMetadata: {},
    },
  };
}

describe('W3C DID test suite, DID resolution (DID Core 1.0 §7.1, §7.3), over the HTTP binding of a running node', () => {
  let dir: TempDir;
  let report: ImplementationReport;
  let original: ImplementationReport;
  let seedAnswer: Record<string, any>;
  let publishedDid: string;

  beforeAll(async () => {
    original = JSON.parse(
      await readFile(new URL('./vectors/did-test-suite/resolver-did-orb.json', import.meta.url), 'utf8'),
    ) as ImplementationReport;
    dir = await makeTempDir('node-did-core-');
    const { url } = await startNodeProcess(dir, { args: ['--batch-writer-timeout', '100ms'] });
    const published = new TestDid(url);
    const deactivated = new TestDid(url);
    for (const did of [published, deactivated])
      expect((await postOperation(url, did.created.request)).status).toBe(200);
    await waitPublished(url, published.did);
    await waitPublished(url, deactivated.did);
    expect((await postOperation(url, deactivated.deactivate())).status).toBe(200);
    await waitPublished(url, deactivated.did, 2);
    publishedDid = published.did;
    seedAnswer = (await (await fetch(`${url}/sidetree/v1/identifiers/${published.did}`)).json()) as Record<string, any>;
    const unpublished = new TestDid(url).created.longFormDid;
    const unknown = new TestDid(url).did;

    const cases: Array<[ExpectedOutcome, string, string | undefined]> = [
      ['defaultOutcome', published.did, undefined],
      ['defaultOutcome', unpublished, undefined],
      ['deactivatedOutcome', deactivated.did, undefined],
      ['notFoundErrorOutcome', unknown, undefined],
      ['invalidDidErrorOutcome', 'did:node:uAAA:', undefined],
      ['invalidDidErrorOutcome', 'did:NODE:uAAA', undefined],
      ['defaultOutcome', published.did, 'application/did+ld+json'],
      ['defaultOutcome', published.did, 'application/did+json'],
      ['defaultOutcome', unpublished, 'application/did+ld+json'],
      ['notFoundErrorOutcome', unknown, 'application/did+json'],
    ];
    const executions: Execution[] = [];
    const expectedOutcomes: Record<ExpectedOutcome, number[]> = {
      defaultOutcome: [],
      invalidDidErrorOutcome: [],
      notFoundErrorOutcome: [],
      representationNotSupportedErrorOutcome: [],
      deactivatedOutcome: [],
    };
    for (const path of PATHS) {
      for (const [outcome, did, accept] of cases) {
        expectedOutcomes[outcome].push(executions.length);
        executions.push(await execute(`${url}${path}`, did, accept));
      }
    }
    report = {
      didMethod: 'did:node',
      implementation: 'anchor node HTTP binding',
      implementer: 'this project',
      expectedOutcomes,
      executions,
    };
  });
  afterAll(async () => {
    await stopAllProcesses();
    await dir?.remove();
  });

  it("the harness accepts Orb's (did:orb) report the W3C suite published", () => {
    const statements = statementsOf(original);
    expect(failuresOf(statements)).toEqual([]);
    console.log(
      `did-test-suite: Orb's report, ${original.executions.length} executions, ${statements.length} DID Core §7.1 / §7.3 statements passed`,
    );
  });

  it('the node passes every statement for published, unpublished, deactivated, unknown and malformed DIDs, on both paths', () => {
    const statements = statementsOf(report);
    expect(failuresOf(statements)).toEqual([]);
    const byOutcome = Object.entries(report.expectedOutcomes)
      .filter(([, indexes]) => indexes.length > 0)
      .map(([outcome, indexes]) => `${indexes.length} ${outcome}`)
      .join(', ');
    console.log(
      `did-test-suite: this node, ${report.executions.length} executions (${byOutcome}), ${statements.length} DID Core §7.1 / §7.3 statements passed`,
    );
  });

  it("refuses Orb's answer as DID resolution metadata: its integers break §7.3", () => {
    const execution: Execution = {
      function: 'resolve',
      input: { did: publishedDid, resolutionOptions: {} },
      output: {
        didResolutionMetadata: {},
        didDocument: seedAnswer.didDocument,
        didDocumentMetadata: seedAnswer.didDocumentMetadata,
      },
    };
    expect(failuresOf(executionStatements(execution, 'defaultOutcome'))).toEqual([
      '7.3 Metadata Structure - The values within any complex data structures such as maps and lists MUST be one of these data types as well.: method holds a value of another type (a number?)',
    ]);
  });
});
