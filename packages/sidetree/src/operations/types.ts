import type { ParsedJws } from '@anchor/common/crypto';
import type { JsonObject } from '../json.js';
import type { SigningKey } from '../keys/signing-key.js';
import type { Patch } from '../patches/types.js';

export type OperationType = 'create' | 'update' | 'recover' | 'deactivate';

export const OPERATION_TYPES: readonly OperationType[] = ['create', 'update', 'recover', 'deactivate'];

/** suffixData as Orb hashes it: deltaHash, recoveryCommitment, and anchorOrigin / type when set. */
export interface SuffixData {
  deltaHash: string;
  recoveryCommitment: string;
  anchorOrigin?: unknown;
  type?: string;
}

interface OperationBase {
  type: OperationType;
  /** The DID suffix: computed from suffixData for a create, taken from the request otherwise. */
  didSuffix: string;
  /**
   * JCS of the normalised request (`{delta, didSuffix, revealValue, signedData, type}` or
   * `{delta, suffixData, type}`): what is stored, re-parsed in anchored mode, and reported as
   * `operationRequest`. For a request accepted at ingest it equals JCS of the request as posted.
   */
  canonicalRequest: Buffer;
  /**
   * The anchor origin the operation names: suffixData.anchorOrigin (create) or signedData.anchorOrigin
   * (recover), when a string. Update and deactivate carry none: the node uses the DID's current origin.
   * Whether the origin is allowed is the node's policy, not checked here.
   */
  anchorOrigin: string | undefined;
}

/** What a delta-carrying operation knows about its delta. */
export interface DeltaFields {
  /** The normalised delta (Go shape), as hashed and as written to chunk files; undefined if none was given. */
  delta: JsonObject | undefined;
  /** Validated patches; set exactly when `deltaProblem` is undefined. */
  patches: readonly Patch[] | undefined;
  /** The delta's `updateCommitment`; set exactly when `deltaProblem` is undefined. */
  nextUpdateCommitment: string | undefined;
  /**
   * Why the delta cannot be applied (invalid, too large, or not matching the signed / suffixData deltaHash).
   * Always undefined at ingest (such requests are refused); anchored operations carry it to the resolver.
   */
  deltaProblem: string | undefined;
}

export interface CreateOperation extends OperationBase, DeltaFields {
  type: 'create';
  suffixData: SuffixData;
  /** suffixData.recoveryCommitment. */
  nextRecoveryCommitment: string;
}

export interface SignedOperationBase extends OperationBase {
  revealValue: string;
  /** The commitment this operation opens (commitment of the revealed key): the resolver's hash-map key. */
  revealedCommitment: string;
  /** The compact JWS as received. */
  signedData: string;
  jws: ParsedJws;
  /** The JWS payload as decoded (including members the normalised forms ignore). */
  signedPayload: JsonObject;
  /** updateKey (update) or recoveryKey (recover, deactivate). */
  signingKey: SigningKey;
  anchorFrom: number | undefined;
  anchorUntil: number | undefined;
}

export interface UpdateOperation extends SignedOperationBase, DeltaFields {
  type: 'update';
}

export interface RecoverOperation extends SignedOperationBase, DeltaFields {
  type: 'recover';
  /** signedData.recoveryCommitment. */
  nextRecoveryCommitment: string;
}

export interface DeactivateOperation extends SignedOperationBase {
  type: 'deactivate';
}

export type ParsedOperation = CreateOperation | UpdateOperation | RecoverOperation | DeactivateOperation;
export type SignedOperation = UpdateOperation | RecoverOperation | DeactivateOperation;
