/**
 * The DID Core 1.0 resolution statements the W3C DID test suite checks (w3c/did-test-suite,
 * `packages/did-core-test-server/suites/did-resolution/did-resolution.js` and `did-core-properties/
 * did-metadata-structure.js`, with the `jest-did-matcher` predicates they use), written again for our
 * harness: each statement is a named check over one execution of an implementation report (the suite's
 * `implementations/*.json` format). See vectors/did-test-suite/README.md.
 */

export type ExpectedOutcome =
  | 'defaultOutcome'
  | 'invalidDidErrorOutcome'
  | 'notFoundErrorOutcome'
  | 'representationNotSupportedErrorOutcome'
  | 'deactivatedOutcome';

export interface Execution {
  function: 'resolve' | 'resolveRepresentation';
  input: { did: string; resolutionOptions: Record<string, unknown> };
  output: {
    didResolutionMetadata: Record<string, unknown>;
    didDocument?: Record<string, unknown> | null;
    didDocumentStream?: string;
    didDocumentMetadata: Record<string, unknown>;
  };
}

export interface ImplementationReport {
  didMethod: string;
  implementation: string;
  implementer: string;
  expectedOutcomes: Record<ExpectedOutcome, number[]>;
  executions: Execution[];
}

export interface Statement {
  /** The suite's wording, with its section. */
  name: string;
  /** Throws when the execution breaks the statement. */
  check(): void;
}

// The matcher predicates of jest-did-matcher.
const isValidDid = (value: unknown): boolean =>
  typeof value === 'string' &&
  /^did:(?<method_name>[a-z0-9]+):(?<method_specific_id>([a-zA-Z0-9.\-_]|%[0-9a-fA-F]{2}|:)+$)/.test(value) &&
  !/:$/.test(value);
const isInfraMap = (value: unknown): boolean => value instanceof Object;
const isMediaType = (value: unknown): boolean => typeof value === 'string' && /^\w+\/[-+.\w]+/.test(value);
const isAsciiString = (value: unknown): boolean =>
  typeof value === 'string' && [...value].every((char) => char.charCodeAt(0) <= 0x7f);
function isDidCoreDatetime(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (!/[0-9]{4}-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z/.test(value)) return false;
  const milliseconds = Date.parse(value);
  return !Number.isNaN(milliseconds) && new Date(milliseconds).toISOString().replace('.000Z', 'Z') === value;
}
const isPropertyValue = (value: unknown): boolean =>
  value === null || Array.isArray(value) || ['object', 'boolean', 'string'].includes(typeof value);
function isDidDocumentMap(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.every(isDidDocumentMap);
  if (typeof value === 'object') return Object.values(value).every(isDidDocumentMap);
  return typeof value === 'boolean' || typeof value === 'string';
}
const methodOf = (did: string): string | undefined => did.split(':')[1];

function consumeRepresentation(stream: string | undefined, contentType: unknown): Record<string, unknown> {
  if (typeof stream !== 'string' || typeof contentType !== 'string') throw new Error('no representation');
  const document = JSON.parse(stream) as Record<string, unknown>;
  if (contentType.startsWith('application/did+ld+json'))
    must(Object.keys(document).includes('@context'), 'no @context');
  else if (!contentType.startsWith('application/did+json')) throw new Error(`unknown representation ${contentType}`);
  return document;
}
function expectConformantDocument(document: unknown): void {
  must(isInfraMap(document), 'the document is not a map');
  must(Object.keys(document as object).includes('id'), 'the document has no id');
}

function must(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

const isError = (outcome: ExpectedOutcome): boolean => outcome.endsWith('ErrorOutcome');

/** The outcome the report expects of its `index`-th execution. */
export function expectedOutcomeOf(report: ImplementationReport, index: number): ExpectedOutcome {
  for (const [outcome, indexes] of Object.entries(report.expectedOutcomes))
    if (indexes.includes(index)) return outcome as ExpectedOutcome;
  throw new Error(`execution ${index} has no expected outcome`);
}

/** The suite's implementation-level statement: at least one successful resolveRepresentation. */
export function implementationStatements(report: ImplementationReport): Statement[] {
  return [
    {
      name: 'All conformant DID resolvers MUST implement the DID resolution functions for at least one DID method and MUST be able to return a DID document in at least one conformant representation.',
      check: () => {
        must(report.executions.length > 0, 'no executions');
        const execution = report.executions.find((e) => e.function === 'resolveRepresentation');
        must(execution !== undefined, 'no resolveRepresentation execution');
        expectConformantDocument(
          consumeRepresentation(
            execution!.output.didDocumentStream,
            execution!.output.didResolutionMetadata.contentType,
          ),
        );
      },
    },
  ];
}

/** Every statement of §7.1 (and of §7.3 for the DID document metadata) that applies to one execution. */
export function executionStatements(execution: Execution, outcome: ExpectedOutcome): Statement[] {
  const { did, resolutionOptions } = execution.input;
  const {
    didResolutionMetadata: resolution,
    didDocument,
    didDocumentStream,
    didDocumentMetadata: metadata,
  } = execution.output;
  const failed = Object.hasOwn(resolution, 'error');
  const statements: Statement[] = [];
  const add = (name: string, check: () => void): void => {
    statements.push({ name, check });
  };

  add(
    '7.1 DID Resolution - This input is REQUIRED and the value MUST be a conformant DID as defined in § 3.1 DID Syntax.',
    () => {
      must(Boolean(did), 'no DID');
      if (resolution.error !== 'invalidDid') must(isValidDid(did), `${did} is not a valid DID`);
    },
  );
  add('7.1 DID Resolution - resolutionOptions: A metadata structure.', () =>
    must(isInfraMap(resolutionOptions), 'not a map'),
  );
  add('7.1 DID Resolution - resolutionOptions: This input is REQUIRED, but the structure MAY be empty.', () =>
    must(Boolean(resolutionOptions), 'missing'),
  );
  add('7.1 DID Resolution - didResolutionMetadata: A metadata structure.', () =>
    must(isInfraMap(resolution), 'not a map'),
  );
  add(
    '7.1 DID Resolution - didResolutionMetadata: This structure is REQUIRED, and in the case of an error in the resolution process, this MUST NOT be empty.',
    () => {
      must(Boolean(resolution), 'missing');
      if (isError(outcome)) must(Object.keys(resolution).length > 0, 'empty on an error');
    },
  );
  add(
    '7.1 DID Resolution - If resolveRepresentation was called, this structure MUST contain a contentType property containing the Media Type of the representation found in the didDocumentStream.',
    () => {
      if (execution.function !== 'resolveRepresentation') return;
      must('contentType' in resolution, 'no contentType');
      must(isMediaType(resolution.contentType), 'contentType is not a media type');
      expectConformantDocument(consumeRepresentation(didDocumentStream, resolution.contentType));
    },
  );
  add(
    '7.1 DID Resolution - If the resolution is not successful, this structure MUST contain an error property describing the error.',
    () => {
      if (isError(outcome)) must(Boolean(resolution.error), 'no error');
    },
  );
  if (execution.function === 'resolve') {
    add(
      '7.1 DID Resolution - If the resolution is successful, and if the resolve function was called, this MUST be a DID document abstract data model (a map) that is capable of being transformed into a conforming DID Document (representation).',
      () => {
        if (failed) return;
        expectConformantDocument(didDocument);
        expectConformantDocument(consumeRepresentation(JSON.stringify(didDocument), 'application/did+json'));
      },
    );
    add(
      '7.1 DID Resolution - The value of id in the resolved DID document MUST match the DID that was resolved.',
      () => {
        if (!failed) must(didDocument?.id === did.split('?')[0], `id ${String(didDocument?.id)} is not ${did}`);
      },
    );
    add('7.1 DID Resolution - If the resolution is unsuccessful, this value MUST be empty.', () => {
      if (failed) must(!didDocument, 'a document on an error');
    });
  }
  if (execution.function === 'resolveRepresentation') {
    add(
      '7.1 DID Resolution - If the resolution is successful, and if the resolveRepresentation function was called, this MUST be a byte stream of the resolved DID document in one of the conformant representations.',
      () => {
        if (failed) return;
        must(Boolean(didDocumentStream), 'no stream');
        must(isMediaType(resolution.contentType), 'contentType is not a media type');
        expectConformantDocument(consumeRepresentation(didDocumentStream, resolution.contentType));
      },
    );
    add('7.1 DID Resolution - If the resolution is unsuccessful, this value MUST be an empty stream.', () => {
      if (failed) must(didDocumentStream === '', 'a stream on an error');
    });
  }
  add(
    '7.1 DID Resolution - didDocumentMetadata: If the resolution is successful, this MUST be a metadata structure.',
    () => {
      if (!failed) must(isInfraMap(metadata), 'not a map');
    },
  );
  add(
    '7.1 DID Resolution - didDocumentMetadata: If the resolution is unsuccessful, this output MUST be an empty metadata structure.',
    () => {
      if (failed) must(isInfraMap(metadata) && Object.keys(metadata).length === 0, 'not empty on an error');
    },
  );
  if ('accept' in resolutionOptions) {
    add(
      "7.1.1 DID Resolution Options - accept: The Media Type of the caller's preferred representation of the DID document.",
      () => must(isMediaType(resolutionOptions.accept), 'not a media type'),
    );
    add('7.1.1 DID Resolution Options - accept: The Media Type MUST be expressed as an ASCII string.', () =>
      must(isAsciiString(resolutionOptions.accept), 'not ASCII'),
    );
  }
  add(
    '7.1.1 DID Resolution Options - accept: This property is OPTIONAL for the resolveRepresentation function and MUST NOT be used with the resolve function.',
    () => {
      if (execution.function === 'resolve') must(!('accept' in resolutionOptions), 'accept given to resolve');
    },
  );
  add(
    '7.1.2 DID Resolution Metadata - contentType: This property is REQUIRED if resolution is successful and if the resolveRepresentation function was called.',
    () => {
      if (!failed && execution.function === 'resolveRepresentation')
        must('contentType' in resolution, 'no contentType');
    },
  );
  add(
    '7.1.2 DID Resolution Metadata - contentType: This property MUST NOT be present if the resolve function was called.',
    () => {
      if (execution.function === 'resolve') must(!('contentType' in resolution), 'contentType from resolve');
    },
  );
  if ('contentType' in resolution) {
    add(
      '7.1.2 DID Resolution Metadata - contentType: The value of this property MUST be an ASCII string that is the Media Type of the conformant representations.',
      () => {
        must(isAsciiString(resolution.contentType) && isMediaType(resolution.contentType), 'not an ASCII media type');
        expectConformantDocument(consumeRepresentation(didDocumentStream, resolution.contentType));
      },
    );
    add(
      '7.1.2 DID Resolution Metadata - contentType: The caller of the resolveRepresentation function MUST use this value when determining how to parse and process the didDocumentStream.',
      () => {
        must(Boolean(didDocumentStream), 'no stream');
        must(Boolean(consumeRepresentation(didDocumentStream, resolution.contentType)), 'not consumable');
        let asImage = true;
        try {
          consumeRepresentation(didDocumentStream, 'image/jpeg');
        } catch {
          asImage = false;
        }
        must(!asImage, 'consumed as image/jpeg');
      },
    );
  }
  add(
    '7.1.2 DID Resolution Metadata - error: This property is REQUIRED when there is an error in the resolution process.',
    () => {
      if (isError(outcome)) must('error' in resolution, 'no error');
    },
  );
  if (failed) {
    add(
      '7.1.2 DID Resolution Metadata - error: The value of this property MUST be a single keyword ASCII string.',
      () => must(isAsciiString(resolution.error) && !/\s/.test(resolution.error as string), 'not a keyword'),
    );
  }
  if (outcome === 'invalidDidErrorOutcome') {
    add(
      '7.1.2 DID Resolution Metadata - invalidDid - The DID supplied to the DID resolution function does not conform to valid syntax.',
      () => {
        must(resolution.error === 'invalidDid', `error ${String(resolution.error)}`);
        must(!isValidDid(did), 'the DID is valid');
        must(!didDocument, 'a document');
      },
    );
  }
  if (outcome === 'notFoundErrorOutcome') {
    add(
      '7.1.2 DID Resolution Metadata - notFound - The DID resolver was unable to find the DID document resulting from this resolution request.',
      () => {
        must(resolution.error === 'notFound', `error ${String(resolution.error)}`);
        must(!didDocument, 'a document');
      },
    );
  }
  statements.push(...metadataStatements(metadata, didDocument ?? undefined, outcome));
  return statements;
}

function metadataStatements(
  metadata: Record<string, unknown>,
  didDocument: Record<string, unknown> | undefined,
  outcome: ExpectedOutcome,
): Statement[] {
  const statements: Statement[] = [];
  const add = (name: string, check: () => void): void => {
    statements.push({ name, check });
  };
  for (const field of ['created', 'updated', 'nextUpdate'] as const) {
    if (field in metadata)
      add(
        `7.1.3 DID Document Metadata - ${field} - an XML Datetime normalized to UTC 00:00:00 without sub-second decimal precision.`,
        () => must(isDidCoreDatetime(metadata[field]), `${String(metadata[field])}`),
      );
  }
  if (outcome === 'deactivatedOutcome')
    add(
      '7.1.3 DID Document Metadata - deactivated - If a DID has been deactivated, DID document metadata MUST include this property with the boolean value true.',
      () => must(metadata.deactivated === true, 'not deactivated'),
    );
  else if ('deactivated' in metadata)
    add(
      '7.1.3 DID Document Metadata - deactivated - If a DID has not been deactivated, this property is OPTIONAL, but if included, MUST have the boolean value false.',
      () => must(metadata.deactivated === false, 'not false'),
    );
  for (const field of ['versionId', 'nextVersionId'] as const) {
    if (field in metadata)
      add(`7.1.3 DID Document Metadata - ${field} - The value of the property MUST be an ASCII string.`, () =>
        must(isAsciiString(metadata[field]), 'not ASCII'),
      );
  }
  if ('equivalentId' in metadata) {
    const ids = metadata.equivalentId;
    add(
      '7.1.3 DID Document Metadata - equivalentId - The value of equivalentId MUST be a set where each item in the list is a string that conforms to the rules in Section § 3.1 DID Syntax.',
      () => must(Array.isArray(ids) && ids.every(isValidDid), 'not a list of DIDs'),
    );
    add(
      '7.1.3 DID Document Metadata - equivalentId - Each equivalentId DID value MUST be produced by, and a form of, the same DID Method as the id property value.',
      () => {
        if (didDocument) for (const id of ids as string[]) must(methodOf(id) === methodOf(String(didDocument.id)), id);
      },
    );
  }
  if ('canonicalId' in metadata) {
    add(
      '7.1.3 DID Document Metadata - canonicalId - The value of canonicalId MUST be a string that conforms to the rules in Section § 3.1 DID Syntax.',
      () => must(isValidDid(metadata.canonicalId), 'not a DID'),
    );
    add(
      '7.1.3 DID Document Metadata - canonicalId - A canonicalId value MUST be produced by, and a form of, the same DID Method as the id property value.',
      () => {
        if (didDocument)
          must(methodOf(String(metadata.canonicalId)) === methodOf(String(didDocument.id)), 'another method');
      },
    );
  }
  add('7.3 Metadata Structure - The structure used to communicate this metadata MUST be a map of properties.', () =>
    must(isInfraMap(metadata), 'not a map'),
  );
  add(
    '7.3 Metadata Structure - Each property value MUST be a string, map, list, ordered set, boolean, or null.',
    () => {
      for (const [name, value] of Object.entries(metadata)) must(isPropertyValue(value), name);
    },
  );
  add(
    '7.3 Metadata Structure - The values within any complex data structures such as maps and lists MUST be one of these data types as well.',
    () => {
      for (const [name, value] of Object.entries(metadata))
        if (typeof value === 'object')
          must(isDidDocumentMap(value), `${name} holds a value of another type (a number?)`);
    },
  );
  add(
    '7.3 Metadata Structure - The entire metadata structure MUST be serializable according to the JSON serialization rules in the [INFRA] specification.',
    () => must(JSON.stringify(JSON.parse(JSON.stringify(metadata))) === JSON.stringify(metadata), 'not JSON'),
  );
  return statements;
}
