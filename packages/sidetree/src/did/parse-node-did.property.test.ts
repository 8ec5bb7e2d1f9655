import { KeyPair } from '@anchor/common/crypto';
import { base64UrlEncode, encodedMultihash, SHA2_256 } from '@anchor/common/encoding';
import { AppError } from '@anchor/common/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequest } from '../client/build-requests.js';
import { addServices, service } from '../client/patch-builders.js';
import { canonicalDid, hashlinkDid, httpsDid, unpublishedDid } from './did-forms.js';
import { parseNodeDid } from './parse-node-did.js';

/**
 * Property tests of the did:node parser with a fixed seed (the same cases every run): a DID arrives in the
 * URL of every resolution request, so any text may reach it, and a bad one must be an AppError bad_request.
 */
const RUNS = { seed: 20261126, numRuns: 300 };

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
/** An anchor hash as DIDs carry it: `u` + base64url of a SHA2-256 multihash. */
const anchorHashes = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((digest) => `u${base64UrlEncode(Buffer.concat([Buffer.from([SHA2_256, 32]), digest]))}`);
const created = createRequest({
  recoveryKey: KeyPair.generate('Ed25519'),
  updateKey: KeyPair.generate('Ed25519'),
  anchorOrigin: 'https://node1.example.com',
  patches: [addServices(service('hub', 'LinkedDomains', 'https://hub.example.com'))],
});
const SUFFIX = created.didSuffix;
const LONG_FORM_SEGMENT = created.longFormDid.split(':').at(-1) as string;

/** Colon-separated segments from the forms' own vocabulary, valid or not, behind the namespace. */
const segment = fc.oneof(
  fc.constantFrom(
    'uAAA',
    'hl',
    'https',
    'node1.example.com',
    'host%3A8080',
    '',
    SUFFIX,
    LONG_FORM_SEGMENT,
    'eyJ9',
    'e30',
    'W10',
  ),
  anchorHashes,
  fc.jsonValue({ maxDepth: 2 }).map((value) => base64UrlEncode(Buffer.from(JSON.stringify(value) ?? ''))),
  fc.string({ unit: anyCodeUnit, maxLength: 6 }),
);
const didLike = fc.array(segment, { maxLength: 6 }).map((segments) => ['did:node', ...segments].join(':'));

describe('parseNodeDid (property, fixed seed)', () => {
  it('throws nothing but an AppError bad_request on arbitrary text and on shuffled DID segments', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: anyCodeUnit, maxLength: 80 }), didLike), (did) => {
        try {
          parseNodeDid(did);
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe('bad_request');
        }
      }),
      RUNS,
    );
  });

  it('reads back every form the builders write: suffix, anchor hash, hint, short form and long-form create', () => {
    const suffixes = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((digest) => encodedMultihash(Buffer.from(digest), SHA2_256));
    const hosts = fc.domain().chain((host) =>
      fc.oneof(
        fc.constant(host),
        fc.integer({ min: 1, max: 65535 }).map((port) => `${host}:${port}`),
      ),
    );
    const forms = fc.oneof(
      suffixes.map((suffix) => ({ did: unpublishedDid(suffix), suffix, anchorHash: undefined, kind: 'unpublished' })),
      fc.tuple(anchorHashes, suffixes).map(([anchorHash, suffix]) => ({
        did: canonicalDid(anchorHash, suffix),
        suffix,
        anchorHash,
        kind: 'canonical',
      })),
      fc.tuple(anchorHashes, suffixes).map(([anchorHash, suffix]) => ({
        did: hashlinkDid(`hl:${anchorHash}`, suffix),
        suffix,
        anchorHash,
        kind: 'hashlink',
      })),
      fc.tuple(hosts, anchorHashes, suffixes).map(([host, anchorHash, suffix]) => ({
        did: httpsDid(host, anchorHash, suffix),
        suffix,
        anchorHash,
        kind: 'https',
        host,
      })),
    );
    fc.assert(
      fc.property(forms, (form) => {
        const parsed = parseNodeDid(form.did);
        expect(parsed).toMatchObject({
          did: form.did,
          suffix: form.suffix,
          anchorHash: form.anchorHash,
          shortForm: form.did,
          longFormCreate: undefined,
        });
        expect(parsed.hint.kind).toBe(form.kind);
        if (parsed.hint.kind === 'https') expect(parsed.hint.domain).toBe('host' in form ? form.host : undefined);
      }),
      RUNS,
    );
    const longForm = parseNodeDid(created.longFormDid);
    expect(longForm).toMatchObject({ suffix: SUFFIX, shortForm: created.did });
    expect(longForm.longFormCreate?.didSuffix).toBe(SUFFIX);
  });

  it('a long form whose initial state is not the suffix’s is refused with a 400', () => {
    const other = encodedMultihash(Buffer.alloc(32, 7), SHA2_256);
    expect(() => parseNodeDid(`${unpublishedDid(other)}:${LONG_FORM_SEGMENT}`)).toThrow(AppError);
  });
});
