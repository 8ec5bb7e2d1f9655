import { AppError, badRequest, errorMessage } from '@anchor/common/errors';
import {
  isProofPurpose,
  signDocument,
  type DocumentLoader,
  type ProofPurpose,
  type ProofType,
} from '@anchor/common/jsonld';
import type { DidResolution } from '../dids/did-resolution.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { ProfileRecord } from '../profiles/profile-model.js';
import { proofTypeOf } from '../profiles/signature-types.js';

/** What a caller may choose about a proof (vc-rest's signing options). */
export interface SigningRequest {
  verificationMethod?: string | undefined;
  proofPurpose?: string | undefined;
  created?: string | undefined;
  domain?: string | undefined;
  challenge?: string | undefined;
}

const SIGNING_PURPOSES: readonly ProofPurpose[] = [
  'assertionMethod',
  'authentication',
  'capabilityDelegation',
  'capabilityInvocation',
];

/**
 * Signs documents with a profile's key: the verification method must be the profile's key (under any form of its
 * DID), listed under the proof purpose in the DID document as resolved now; then the proof is made through the
 * profile's signer (local key or kms).
 */
export class ProofSigning {
  constructor(
    private readonly keys: SigningKeys,
    private readonly resolution: DidResolution,
    private readonly documentLoader: DocumentLoader,
  ) {}

  /**
   * Refuses a document that names, as its issuer or holder (`role`), anyone but the profile: a profile signs
   * only as its own DID (any form of it: a did:node before and after publication), or a verifier would read
   * a credential signed with this profile's key as another's.
   */
  async requireOwnDid(profile: ProfileRecord, id: string | undefined, where: string): Promise<void> {
    if (id === profile.did) return;
    if (id !== undefined && id.startsWith('did:')) {
      try {
        if ((await this.resolution.resolveMethods(profile.did)).ids.has(id)) return;
      } catch (error) {
        if (error instanceof AppError && error.retryable) throw error;
      }
    }
    throw badRequest(
      `${where} ${JSON.stringify(id)} is not the DID of profile ${profile.name} (${profile.did}): a profile signs only as its own DID`,
    );
  }

  async sign<T extends object>(
    document: T,
    profile: ProfileRecord,
    request: SigningRequest,
    defaultPurpose: ProofPurpose,
  ): Promise<T> {
    const proofPurpose = request.proofPurpose ?? defaultPurpose;
    if (!isProofPurpose(proofPurpose) || !SIGNING_PURPOSES.includes(proofPurpose))
      throw badRequest(`proofPurpose ${JSON.stringify(proofPurpose)} is not one of ${SIGNING_PURPOSES.join(', ')}`);
    const verificationMethod = request.verificationMethod ?? profile.creator;
    if (verificationMethod.split('#').length !== 2 || !verificationMethod.startsWith('did:'))
      throw badRequest(`verification method ${JSON.stringify(verificationMethod)} is not a DID URL did#key`);
    const signer = await this.keys.signer(profile.keyRef);
    let method;
    try {
      method = await this.resolution.verificationMethods(verificationMethod);
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      throw badRequest(`verification method ${verificationMethod} does not resolve: ${errorMessage(error)}`);
    }
    if (!method || !method.key.publicKeyBytes().equals(signer.publicKey.publicKeyBytes()))
      throw badRequest(
        `verification method ${verificationMethod} is not the key of profile ${profile.name} (${profile.creator})`,
      );
    if (!method.purposes.includes(proofPurpose))
      throw badRequest(`${verificationMethod} is not listed under ${proofPurpose} in its DID document`);
    const { type, cryptosuite } = proofTypeOf(profile.signatureType);
    return signDocument(document, {
      signer,
      documentLoader: this.documentLoader,
      ...(cryptosuite ? { cryptosuite } : { type: type as ProofType }),
      verificationMethod,
      proofPurpose,
      ...(request.created !== undefined ? { created: request.created } : {}),
      ...(request.domain !== undefined ? { domain: request.domain } : {}),
      ...(request.challenge !== undefined ? { challenge: request.challenge } : {}),
    });
  }
}
