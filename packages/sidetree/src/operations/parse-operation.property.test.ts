import { KeyPair, type KeyType } from '@anchor/common/crypto';
import { canonicalize } from '@anchor/common/encoding';
import { AppError } from '@anchor/common/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRequest,
  deactivateRequest,
  recoverRequest,
  serializeRequest,
  updateRequest,
} from '../client/build-requests.js';
import {
  addAlsoKnownAs,
  addPublicKeys,
  addServices,
  documentKey,
  removePublicKeys,
  removeServices,
  service,
} from '../client/patch-builders.js';
import type { Patch, VerificationRelationship } from '../patches/types.js';
import { requestFixture } from '../testing/requests.test-helpers.js';
import { DID_NODE_PROTOCOL } from '../protocol.js';
import { parseOperation, parseOperationRequest } from './parse-operation.js';

/** Property tests of the operation parser with a fixed seed (the same cases every run). */
const RUNS = { seed: 20261126, numRuns: 300 };
const NOW = 1_700_000_000;
const ingest = (bytes: Uint8Array | string) => parseOperation(bytes, { now: NOW });
/** Anchored operations arrive as JSON values, parsed from batch files or storage ('' stands for undefined). */
const anchored = (text: Uint8Array | string) =>
  parseOperationRequest(text === '' ? undefined : JSON.parse(text.toString()), { mode: 'anchored' });

function expectOnlyBadRequest(
  bytes: Uint8Array | string,
  parse: (bytes: Uint8Array | string) => unknown = ingest,
): void {
  try {
    parse(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
  }
}

/** Keys are costly to make: a small pool per type, picked by index. */
const KEY_TYPES: KeyType[] = ['Ed25519', 'P-256', 'secp256k1'];
const POOL = Object.fromEntries(
  KEY_TYPES.map((type) => [type, Array.from({ length: 3 }, () => KeyPair.generate(type))]),
) as Record<KeyType, KeyPair[]>;
const keys = fc
  .tuple(fc.constantFrom(...KEY_TYPES), fc.nat({ max: 2 }))
  .map(([type, index]) => POOL[type][index] as KeyPair);

const ids = fc.stringMatching(/^[A-Za-z0-9_-]{1,50}$/);
const purposes = fc.uniqueArray(
  fc.constantFrom<VerificationRelationship>(
    'authentication',
    'assertionMethod',
    'capabilityDelegation',
    'capabilityInvocation',
  ),
  { maxLength: 4 },
);
const httpsUrls = fc.webUrl({ validSchemes: ['https'], withQueryParameters: true });
const patches: fc.Arbitrary<Patch[]> = fc.array(
  fc.oneof(
    fc
      .uniqueArray(fc.tuple(ids, keys, purposes), { minLength: 1, maxLength: 3, selector: ([id]) => id })
      .map((entries) =>
        addPublicKeys(
          ...entries.map(([id, key, uses]) => documentKey(id, key, uses.length > 0 ? { purposes: uses } : {})),
        ),
      ),
    fc
      .uniqueArray(fc.tuple(ids, ids, httpsUrls), { minLength: 1, maxLength: 3, selector: ([id]) => id })
      .map((entries) => addServices(...entries.map(([id, type, url]) => service(id, type, url)))),
    fc.uniqueArray(ids, { minLength: 1, maxLength: 3 }).map((list) => removePublicKeys(...list)),
    fc.uniqueArray(ids, { minLength: 1, maxLength: 3 }).map((list) => removeServices(...list)),
    fc.uniqueArray(httpsUrls, { minLength: 1, maxLength: 2 }).map((uris) => addAlsoKnownAs(...uris)),
  ),
  { minLength: 1, maxLength: 3 },
);
/** The suffix of an existing DID: the parser checks its form, not whether it exists. */
const SUFFIX = requestFixture().didSuffix;
const origins = fc.webUrl({ validSchemes: ['https'] }).map((url) => new URL(url).origin);

/** `count` different keys: a request that reuses its current key as the next one is refused (key reuse). */
const distinctKeys = (count: number) => fc.uniqueArray(keys, { minLength: count, maxLength: count });

/** Valid requests of every type, from the client builders. */
const validRequests = fc.oneof(
  fc
    .record({ keys: distinctKeys(2), patches, anchorOrigin: origins })
    .map(
      ({ keys: [recoveryKey, updateKey], ...input }) =>
        createRequest({ recoveryKey: recoveryKey!, updateKey: updateKey!, ...input }).request,
    ),
  fc
    .record({ keys: distinctKeys(2), patches })
    .map(({ keys: [updateKey, nextUpdateKey], patches }) =>
      updateRequest({ didSuffix: SUFFIX, updateKey: updateKey!, nextUpdateKey: nextUpdateKey!, patches }),
    ),
  fc
    .record({ keys: distinctKeys(3), patches, anchorOrigin: origins })
    .map(({ keys: [recoveryKey, nextRecoveryKey, nextUpdateKey], ...input }) =>
      recoverRequest({
        didSuffix: SUFFIX,
        recoveryKey: recoveryKey!,
        nextRecoveryKey: nextRecoveryKey!,
        nextUpdateKey: nextUpdateKey!,
        ...input,
      }),
    ),
  keys.map((recoveryKey) => deactivateRequest({ didSuffix: SUFFIX, recoveryKey })),
);

/** The same JSON value with every object's members in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, member]) => [key, reversed(member)]),
    );
  return value;
}

/** Every path into a JSON value, for mutations. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((member, index) => paths(member, [...prefix, index]))];
  if (value !== null && typeof value === 'object')
    return [prefix, ...Object.entries(value).flatMap(([key, member]) => paths(member, [...prefix, key]))];
  return [prefix];
}

/** A copy of `value` with the member at `path` replaced (or removed when `replacement` is undefined). */
function mutate(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

describe('parseOperation (property, fixed seed)', () => {
  it('throws nothing but an AppError bad_request on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => expectOnlyBadRequest(bytes)),
      RUNS,
    );
  });

  it('throws nothing but an AppError bad_request on arbitrary JSON, and on objects naming an operation type', () => {
    const typed = fc.tuple(
      fc.constantFrom('create', 'update', 'recover', 'deactivate'),
      fc.dictionary(
        fc.constantFrom('suffixData', 'delta', 'didSuffix', 'revealValue', 'signedData', 'x'),
        fc.jsonValue({ maxDepth: 3 }),
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue({ stringUnit: 'binary' }),
          typed.map(([type, members]) => ({ ...members, type })),
        ),
        (value) => expectOnlyBadRequest(JSON.stringify(value) ?? ''),
      ),
      RUNS,
    );
  });

  it('throws nothing but an AppError bad_request on a valid request with one member replaced or removed', () => {
    const replacements = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('', 'uEiA', 'x'.repeat(2000), -1, 1e308, true, null, [], {}),
    );
    fc.assert(
      fc.property(validRequests, fc.nat(), replacements, (request, pick, replacement) => {
        const all = paths(request);
        const path = all[pick % all.length] as Array<string | number>;
        expectOnlyBadRequest(JSON.stringify(mutate(request, path, replacement)) ?? '');
      }),
      { ...RUNS, numRuns: 500 },
    );
  });

  it('reading anchored operations, as from the batch files of other nodes, throws nothing but an AppError bad_request either', () => {
    const replacements = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('', 'uEiA', -1, true, null, [], {}),
    );
    fc.assert(
      fc.property(validRequests, fc.nat(), replacements, (request, pick, replacement) => {
        const all = paths(request);
        const path = all[pick % all.length] as Array<string | number>;
        expectOnlyBadRequest(JSON.stringify(mutate(request, path, replacement)) ?? '', anchored);
      }),
      { ...RUNS, numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) =>
        expectOnlyBadRequest(JSON.stringify(value) ?? '', anchored),
      ),
      RUNS,
    );
  });

  it('accepts every request the client builders make within the size limit, and reads back its type, suffix and canonical bytes', () => {
    let accepted = 0;
    fc.assert(
      fc.property(validRequests, (request) => {
        const bytes = serializeRequest(request);
        if (bytes.length > DID_NODE_PROTOCOL.maxOperationSize) {
          expect(() => ingest(bytes)).toThrow(/operation request is too large/);
          return;
        }
        const operation = ingest(bytes);
        accepted++;
        expect(operation.type).toBe(request.type);
        if (request.type !== 'create') expect(operation.didSuffix).toBe(request.didSuffix);
        expect(operation.canonicalRequest.toString('utf8')).toBe(canonicalize(request));
        // Another serialisation of the same request (members in reverse order) is the same operation.
        expect(ingest(JSON.stringify(reversed(request))).canonicalRequest.equals(operation.canonicalRequest)).toBe(
          true,
        );
      }),
      { ...RUNS, numRuns: 150 },
    );
    // Most cases must reach the parser proper, not the size refusal.
    expect(accepted).toBeGreaterThan(100);
  });
});
