import { signJws, type Jwk, type KeyPair } from '@anchor/common/crypto';
import { canonicalBytes, canonicalize } from '@anchor/common/encoding';
import { DEFAULT_NAMESPACE, unpublishedDid } from '../did/did-forms.js';
import { longFormDid } from '../did/long-form.js';
import { hashBytes, hashCanonical } from '../hashing.js';
import { commitmentOf, revealValueOf } from '../keys/signing-key.js';
import type { Patch } from '../patches/types.js';
import { publicJwkOf } from './keys.js';
import type {
  CreateRequest,
  CreateSuffixData,
  DeactivateRequest,
  DeactivateSignedData,
  Delta,
  OperationRequest,
  RecoverRequest,
  RecoverSignedData,
  UpdateRequest,
  UpdateSignedData,
} from './requests.js';

/**
 * Key-pair based request builders, pure and synchronous: the client side of the protocol, used by tests,
 * benchmarks and integration tests. Signed data is JCS-serialised and signed with a sorted compact header
 * (`signJws`), commitments and reveal values use the Go JWK normalisation, so the requests are accepted by
 * this node and by Orb alike.
 */
export interface AnchorWindowInput {
  /** Unix seconds; send both or neither (a lone anchorFrom is valid for protocol.anchorUntilWindow seconds). */
  anchorFrom?: number;
  anchorUntil?: number;
}

export interface CreateRequestInput {
  /** The key whose commitment becomes the recovery commitment (only the public part is used). */
  recoveryKey: KeyPair | Jwk;
  /** The key whose commitment becomes the first update commitment (only the public part is used). */
  updateKey: KeyPair | Jwk;
  patches: Patch[];
  /** did:node requires it: the anchor origin that will anchor this DID. */
  anchorOrigin?: string;
  /** Optional suffixData.type tag. */
  suffixType?: string;
}

export interface BuiltCreate {
  request: CreateRequest;
  didSuffix: string;
  /** The short form before anchoring: `<namespace>:uAAA:<suffix>` (did:node) or `<namespace>:<suffix>`. */
  did: string;
  longFormDid: string;
}

export interface DidFormOptions {
  /** Defaults to `did:node`. */
  namespace?: string;
  /** Whether the short form carries the `uAAA` hint (did:node: yes; plain Sidetree methods: no). */
  unpublishedHint?: boolean;
}

/**
 * ```ts
 * const { request, didSuffix, did, longFormDid } = createRequest({
 *   recoveryKey, updateKey, anchorOrigin: 'https://node1.example.com',
 *   patches: [addPublicKeys(documentKey('key-1', signingKey, { purposes: ['authentication'] }))],
 * });
 * ```
 */
export function createRequest(input: CreateRequestInput, forms: DidFormOptions = {}): BuiltCreate {
  const delta: Delta = { patches: input.patches, updateCommitment: commitmentOf(publicJwkOf(input.updateKey)) };
  const suffixData: CreateSuffixData = {
    deltaHash: hashCanonical(delta),
    recoveryCommitment: commitmentOf(publicJwkOf(input.recoveryKey)),
  };
  if (input.anchorOrigin !== undefined) suffixData.anchorOrigin = input.anchorOrigin;
  if (input.suffixType !== undefined) suffixData.type = input.suffixType;
  const request: CreateRequest = { type: 'create', suffixData, delta };
  const didSuffix = hashBytes(canonicalize(suffixData));
  const namespace = forms.namespace ?? DEFAULT_NAMESPACE;
  const did = forms.unpublishedHint === false ? `${namespace}:${didSuffix}` : unpublishedDid(didSuffix, namespace);
  return { request, didSuffix, did, longFormDid: longFormDid(did, request) };
}

export interface UpdateRequestInput extends AnchorWindowInput {
  didSuffix: string;
  /** The current update key, with its private part: it signs and is revealed. */
  updateKey: KeyPair;
  /** The next update key (its commitment is published now, the key only at the next update). */
  nextUpdateKey: KeyPair | Jwk;
  patches: Patch[];
  kid?: string;
}

export function updateRequest(input: UpdateRequestInput): UpdateRequest {
  const updateKey = input.updateKey.publicJwk();
  const delta: Delta = { patches: input.patches, updateCommitment: commitmentOf(publicJwkOf(input.nextUpdateKey)) };
  const signed: UpdateSignedData = { updateKey, deltaHash: hashCanonical(delta), ...window(input) };
  return {
    type: 'update',
    didSuffix: input.didSuffix,
    revealValue: revealValueOf(updateKey),
    delta,
    signedData: sign(signed, input.updateKey, input.kid),
  };
}

export interface RecoverRequestInput extends AnchorWindowInput {
  didSuffix: string;
  /** The current recovery key, with its private part. */
  recoveryKey: KeyPair;
  nextRecoveryKey: KeyPair | Jwk;
  nextUpdateKey: KeyPair | Jwk;
  /** The new document, built from an empty one. */
  patches: Patch[];
  /** did:node requires it: the (possibly new) anchor origin of the DID. */
  anchorOrigin?: string;
  kid?: string;
}

export function recoverRequest(input: RecoverRequestInput): RecoverRequest {
  const recoveryKey = input.recoveryKey.publicJwk();
  const delta: Delta = { patches: input.patches, updateCommitment: commitmentOf(publicJwkOf(input.nextUpdateKey)) };
  const signed: RecoverSignedData = {
    recoveryCommitment: commitmentOf(publicJwkOf(input.nextRecoveryKey)),
    recoveryKey,
    deltaHash: hashCanonical(delta),
    ...window(input),
  };
  if (input.anchorOrigin !== undefined) signed.anchorOrigin = input.anchorOrigin;
  return {
    type: 'recover',
    didSuffix: input.didSuffix,
    revealValue: revealValueOf(recoveryKey),
    delta,
    signedData: sign(signed, input.recoveryKey, input.kid),
  };
}

export interface DeactivateRequestInput extends AnchorWindowInput {
  didSuffix: string;
  /** The current recovery key, with its private part. */
  recoveryKey: KeyPair;
  /** `node` (default) signs the Go shape with revealValue; `dif` signs exactly {didSuffix, recoveryKey}. */
  style?: 'node' | 'dif';
  kid?: string;
}

export function deactivateRequest(input: DeactivateRequestInput): DeactivateRequest {
  const recoveryKey = input.recoveryKey.publicJwk();
  const revealValue = revealValueOf(recoveryKey);
  const signed: DeactivateSignedData =
    input.style === 'dif'
      ? { didSuffix: input.didSuffix, recoveryKey }
      : { didSuffix: input.didSuffix, recoveryKey, revealValue, ...window(input) };
  return {
    type: 'deactivate',
    didSuffix: input.didSuffix,
    revealValue,
    signedData: sign(signed, input.recoveryKey, input.kid),
  };
}

/** The bytes to post: JCS of the request (any JSON serialisation is accepted; this one is deterministic). */
export function serializeRequest(request: OperationRequest): Buffer {
  return canonicalBytes(request);
}

function sign(payload: object, key: KeyPair, kid: string | undefined): string {
  return signJws(canonicalBytes(payload), key, kid === undefined ? {} : { kid });
}

function window(input: AnchorWindowInput): AnchorWindowInput {
  const result: AnchorWindowInput = {};
  if (input.anchorFrom !== undefined) result.anchorFrom = input.anchorFrom;
  if (input.anchorUntil !== undefined) result.anchorUntil = input.anchorUntil;
  return result;
}
