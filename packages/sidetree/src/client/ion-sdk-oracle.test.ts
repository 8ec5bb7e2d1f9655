import { KeyPair, type Jwk } from '@anchor/common/crypto';
import {
  IonDid,
  IonRequest,
  LocalSigner,
  type IonDocumentModel,
  type JwkEs256k,
} from '@decentralized-identity/ion-sdk';
import { describe, expect, it } from 'vitest';
import { parseSidetreeDid } from '../did/parse-sidetree-did.js';
import { parseOperation } from '../operations/parse-operation.js';
import type { SignedOperation } from '../operations/types.js';
import { signatureProblem } from '../operations/verify-signature.js';
import { DIF_PROTOCOL } from '../protocol.js';
import { payloadOf } from '../testing/requests.test-helpers.js';
import { createRequest, deactivateRequest, recoverRequest, serializeRequest, updateRequest } from './build-requests.js';
import {
  addPublicKeys,
  addServices,
  documentKey,
  removePublicKeys,
  removeServices,
  replaceDocument,
  service,
} from './patch-builders.js';

/**
 * @decentralized-identity/ion-sdk as an independent oracle where its shapes and ours overlap (ES256K keys,
 * the DIF profile): the same inputs must give the same requests, DIDs and signed payloads, and each
 * implementation must accept what the other signs.
 */
const key = () => KeyPair.generate('secp256k1');
const es256k = (pair: KeyPair) => pair.publicJwk() as JwkEs256k;
const privateEs256k = (pair: KeyPair) => pair.privateJwk() as JwkEs256k;
const keys = { recovery: key(), update: key(), nextRecovery: key(), nextUpdate: key(), document: key() };
const documentPublicKey = documentKey('signing-key', keys.document, {
  type: 'EcdsaSecp256k1VerificationKey2019',
  purposes: ['authentication', 'assertionMethod'],
});
const document = {
  publicKeys: [documentPublicKey],
  services: [service('dwn', 'DecentralizedWebNode', 'https://dwn.example.com')],
};
const ionDocument = document as unknown as IonDocumentModel;
const accept = (request: unknown) => parseOperation(serializeRequest(request as never), { protocol: DIF_PROTOCOL });
const signedParts = (jws: string) => ({ header: jws.split('.')[0], payload: payloadOf(jws) });

describe('client builders against ion-sdk', () => {
  it('create: the same request, suffix and long-form DID', async () => {
    const ion = await IonRequest.createCreateRequest({
      recoveryKey: es256k(keys.recovery),
      updateKey: es256k(keys.update),
      document: ionDocument,
    });
    const ours = createRequest(
      { recoveryKey: keys.recovery, updateKey: keys.update, patches: [replaceDocument(document)] },
      { namespace: 'did:ion', unpublishedHint: false },
    );
    expect(ours.request).toEqual(ion);
    const longForm = await IonDid.createLongFormDid({
      recoveryKey: es256k(keys.recovery),
      updateKey: es256k(keys.update),
      document: ionDocument,
    });
    expect(ours.longFormDid).toBe(longForm);
    const parsed = parseSidetreeDid(longForm, { namespace: 'did:ion' });
    expect(parsed.suffix).toBe(ours.didSuffix);
    expect(accept(ion).didSuffix).toBe(ours.didSuffix);
  });

  it('update: the same delta and signed payload; each side verifies the other’s signature', async () => {
    const didSuffix = createRequest({
      recoveryKey: keys.recovery,
      updateKey: keys.update,
      patches: [replaceDocument(document)],
    }).didSuffix;
    const added = documentKey('second', key(), {
      type: 'EcdsaSecp256k1VerificationKey2019',
      purposes: ['keyAgreement'],
    });
    const ion = await IonRequest.createUpdateRequest({
      didSuffix,
      updatePublicKey: es256k(keys.update),
      nextUpdatePublicKey: es256k(keys.nextUpdate),
      signer: LocalSigner.create(privateEs256k(keys.update)),
      servicesToAdd: [service('extra', 'Extra', 'https://extra.example.com') as never],
      idsOfServicesToRemove: ['dwn'],
      publicKeysToAdd: [added as never],
      idsOfPublicKeysToRemove: ['signing-key'],
    });
    const ours = updateRequest({
      didSuffix,
      updateKey: keys.update,
      nextUpdateKey: keys.nextUpdate,
      patches: [
        addServices(service('extra', 'Extra', 'https://extra.example.com')),
        removeServices('dwn'),
        addPublicKeys(added),
        removePublicKeys('signing-key'),
      ],
    });
    const { signedData: ionSigned, ...ionRest } = ion;
    const { signedData: ourSigned, ...ourRest } = ours;
    expect(ourRest).toEqual(ionRest);
    expect(signedParts(ourSigned)).toEqual(signedParts(ionSigned));
    expect(signatureProblem(accept(ion) as SignedOperation)).toBeUndefined();
    expect(signatureProblem(accept(ours) as SignedOperation)).toBeUndefined();
  });

  it('recover and deactivate: the same requests and payloads, accepted both ways', async () => {
    const didSuffix = createRequest({
      recoveryKey: keys.recovery,
      updateKey: keys.update,
      patches: [replaceDocument(document)],
    }).didSuffix;
    const ionRecover = await IonRequest.createRecoverRequest({
      didSuffix,
      recoveryPublicKey: es256k(keys.recovery),
      nextRecoveryPublicKey: es256k(keys.nextRecovery),
      nextUpdatePublicKey: es256k(keys.nextUpdate),
      document: ionDocument,
      signer: LocalSigner.create(privateEs256k(keys.recovery)),
    });
    const ourRecover = recoverRequest({
      didSuffix,
      recoveryKey: keys.recovery,
      nextRecoveryKey: keys.nextRecovery,
      nextUpdateKey: keys.nextUpdate,
      patches: [replaceDocument(document)],
    });
    expect({ ...ourRecover, signedData: undefined }).toEqual({ ...ionRecover, signedData: undefined });
    expect(signedParts(ourRecover.signedData)).toEqual(signedParts(ionRecover.signedData));
    expect(signatureProblem(accept(ionRecover) as SignedOperation)).toBeUndefined();
    expect(signatureProblem(accept(ourRecover) as SignedOperation)).toBeUndefined();

    const ionDeactivate = await IonRequest.createDeactivateRequest({
      didSuffix,
      recoveryPublicKey: es256k(keys.recovery),
      signer: LocalSigner.create(privateEs256k(keys.recovery)),
    });
    const ourDeactivate = deactivateRequest({ didSuffix, recoveryKey: keys.recovery, style: 'dif' });
    expect({ ...ourDeactivate, signedData: undefined }).toEqual({ ...ionDeactivate, signedData: undefined });
    expect(signedParts(ourDeactivate.signedData)).toEqual(signedParts(ionDeactivate.signedData));
    expect(signatureProblem(accept(ionDeactivate) as SignedOperation)).toBeUndefined();
    // The did:node shape adds the reveal value to the signed payload.
    expect(payloadOf(deactivateRequest({ didSuffix, recoveryKey: keys.recovery }).signedData)).toEqual({
      ...(payloadOf(ionDeactivate.signedData) as Record<string, Jwk>),
      revealValue: ionDeactivate.revealValue,
    });
  });
});
