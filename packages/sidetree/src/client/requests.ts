import type { Jwk } from '@anchor/common/crypto';
import type { Patch } from '../patches/types.js';

/** The operation requests a client posts to `POST /operations` (the spec's "Sidetree operation requests"). */
export interface Delta {
  patches: Patch[];
  updateCommitment: string;
}

export interface CreateSuffixData {
  deltaHash: string;
  recoveryCommitment: string;
  anchorOrigin?: string;
  type?: string;
}

export interface CreateRequest {
  type: 'create';
  suffixData: CreateSuffixData;
  delta: Delta;
}

export interface UpdateRequest {
  type: 'update';
  didSuffix: string;
  revealValue: string;
  delta: Delta;
  signedData: string;
}

export interface RecoverRequest {
  type: 'recover';
  didSuffix: string;
  revealValue: string;
  delta: Delta;
  signedData: string;
}

export interface DeactivateRequest {
  type: 'deactivate';
  didSuffix: string;
  revealValue: string;
  signedData: string;
}

export type OperationRequest = CreateRequest | UpdateRequest | RecoverRequest | DeactivateRequest;

/** The signed payloads, as this client writes them (JCS-serialised before signing). */
export interface UpdateSignedData {
  updateKey: Jwk;
  deltaHash: string;
  anchorFrom?: number;
  anchorUntil?: number;
}

export interface RecoverSignedData {
  recoveryCommitment: string;
  recoveryKey: Jwk;
  deltaHash: string;
  anchorOrigin?: string;
  anchorFrom?: number;
  anchorUntil?: number;
}

export interface DeactivateSignedData {
  didSuffix: string;
  recoveryKey: Jwk;
  revealValue?: string;
  anchorFrom?: number;
  anchorUntil?: number;
}
