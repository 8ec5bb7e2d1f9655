import type { KeyPair } from '@anchor/common/crypto';
import { base58Decode } from '@anchor/common/encoding';
import { AppError, badRequest, conflict, errorMessage, notFound } from '@anchor/common/errors';
import { formatDateTimeStamp } from '@anchor/common/jsonld';
import { validate } from '@anchor/common/schemas';
import type { Store, StoreProvider } from '@anchor/common/storage';
import type { DidCreation, KeyPurpose } from '../dids/did-creation.js';
import type { DidResolution } from '../dids/did-resolution.js';
import type { ProfileKeyType, SigningKeys } from '../keys/signing-keys.js';
import {
  HOLDER_PROFILE_REQUEST,
  ISSUER_PROFILE_REQUEST,
  type ProfileKind,
  type ProfileRecord,
  type ProfileRequest,
} from './profile-model.js';
import { representationName, suiteFacts } from './signature-types.js';

const PURPOSE: Readonly<Record<ProfileKind, KeyPurpose>> = { issuer: 'assertionMethod', holder: 'authentication' };

/** Issuer and holder profiles: creation (with a DID made or checked), lookup, deletion. */
export class Profiles {
  private constructor(
    private readonly store: Store<ProfileRecord>,
    private readonly keys: SigningKeys,
    private readonly dids: DidCreation,
    private readonly resolution: DidResolution,
  ) {}

  static async open(
    storage: StoreProvider,
    keys: SigningKeys,
    dids: DidCreation,
    resolution: DidResolution,
  ): Promise<Profiles> {
    return new Profiles(await storage.open<ProfileRecord>('vcs-profiles'), keys, dids, resolution);
  }

  /** Creates a profile; 409 when the name is taken, 400 for a bad body or a DID that does not hold the key. */
  async create(kind: ProfileKind, body: unknown): Promise<ProfileRecord> {
    const request = validate(kind === 'issuer' ? ISSUER_PROFILE_REQUEST : HOLDER_PROFILE_REQUEST, body, {
      what: `${kind} profile`,
    });
    const facts = suiteFacts(request.signatureType);
    const keyType = keyTypeOf(request, facts.keyTypes);
    if (request.signatureRepresentation !== undefined && request.signatureRepresentation !== facts.representation)
      throw badRequest(
        `signatureRepresentation ${request.signatureRepresentation} (${representationName(request.signatureRepresentation)}) is not available with ${request.signatureType}, which writes ${representationName(facts.representation)}`,
      );
    if (await this.store.get(keyOf(kind, request.name))) throw conflict(`profile ${request.name} already exists`);

    const signing = request.did
      ? await this.adoptDid(kind, request, keyType)
      : await this.dids.create(keyType).then((created) => ({
          did: created.did,
          creator: created.verificationMethod,
          keyRef: created.signer.keyRef,
          ...(created.updateKeyRef ? { updateKeyRef: created.updateKeyRef } : {}),
          ...(created.recoveryKeyRef ? { recoveryKeyRef: created.recoveryKeyRef } : {}),
        }));

    const record: ProfileRecord = {
      kind,
      name: request.name,
      ...(request.uri !== undefined ? { uri: request.uri } : {}),
      signatureType: request.signatureType,
      signatureRepresentation: facts.representation,
      ...signing,
      created: formatDateTimeStamp(new Date()),
      didKeyType: keyType,
      ...(kind === 'issuer'
        ? {
            disableVCStatus: request.disableVCStatus ?? false,
            overwriteIssuer: request.overwriteIssuer ?? false,
            credentialStatusPurposes: request.credentialStatusPurposes ?? ['revocation'],
          }
        : { overwriteHolder: request.overwriteHolder ?? false }),
    };
    if (!(await this.store.insert(keyOf(kind, request.name), record)))
      throw conflict(`profile ${request.name} already exists`);
    return record;
  }

  async get(kind: ProfileKind, name: string): Promise<ProfileRecord> {
    const record = await this.store.get(keyOf(kind, name));
    if (!record) throw notFound(`${kind} profile ${name} not found`);
    return record;
  }

  async delete(kind: ProfileKind, name: string): Promise<void> {
    if (!(await this.store.delete(keyOf(kind, name)))) throw notFound(`${kind} profile ${name} not found`);
  }

  /** An existing DID: it must resolve and list `didKeyID` under the profile's relationship, and the key must match. */
  private async adoptDid(
    kind: ProfileKind,
    request: ProfileRequest,
    keyType: ProfileKeyType,
  ): Promise<Pick<ProfileRecord, 'did' | 'creator' | 'keyRef'>> {
    const did = request.did as string;
    const keyId = request.didKeyID ?? request.creator;
    if (!keyId) throw badRequest('didKeyID is required with did (the verification method to sign with)');
    if (!keyId.startsWith(`${did}#`)) throw badRequest(`didKeyID ${keyId} is not a key of ${did}`);
    if (!request.didPrivateKey)
      throw badRequest('didPrivateKey is required with did (the key of didKeyID to sign with)');
    let methods;
    try {
      this.resolution.forget(did);
      methods = await this.resolution.resolveMethods(did);
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      throw badRequest(`did ${did} does not resolve: ${errorMessage(error)}`);
    }
    const method = methods.methods.find((candidate) => candidate.id === keyId);
    if (!method) throw badRequest(`${did} has no verification method ${keyId}`);
    const purpose = PURPOSE[kind];
    if (!method.purposes.includes(purpose)) throw badRequest(`${keyId} is not listed under ${purpose} in ${did}`);
    let privateKey: Uint8Array;
    try {
      privateKey = base58Decode(request.didPrivateKey);
    } catch {
      throw badRequest('didPrivateKey is not base58');
    }
    const signer = await this.keys.importKey(keyType, privateKey);
    if (!samePublicKey(signer.publicKey, method.key))
      throw badRequest(`didPrivateKey is not the private key of ${keyId}`);
    return { did, creator: keyId, keyRef: signer.keyRef };
  }
}

function keyOf(kind: ProfileKind, name: string): string {
  return `${kind}:${name}`;
}

function keyTypeOf(request: ProfileRequest, allowed: readonly ProfileKeyType[]): ProfileKeyType {
  const wanted: ProfileKeyType | undefined =
    request.didKeyType === undefined ? undefined : request.didKeyType === 'Ed25519' ? 'Ed25519' : 'P-256';
  const type = wanted ?? (allowed[0] as ProfileKeyType);
  if (!allowed.includes(type))
    throw badRequest(
      `didKeyType ${request.didKeyType} cannot sign ${request.signatureType} (it takes ${allowed.join(', ')})`,
    );
  return type;
}

function samePublicKey(a: KeyPair, b: KeyPair): boolean {
  return a.type === b.type && a.publicKeyBytes().equals(b.publicKeyBytes());
}
