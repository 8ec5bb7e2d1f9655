import { KeyPair } from '@anchor/common/crypto';
import { addPublicKeys, createRequest, documentKey, serializeRequest } from '@anchor/sidetree';

export interface PreparedCreate {
  /** `did:node:uAAA:<suffix>`. */
  did: string;
  body: Buffer;
}

/**
 * Create requests prepared before the load starts (signing material is the client's cost, not the
 * node's): each DID has its own Ed25519 document key; the recovery and update keys are shared across the
 * batch, which changes nothing for the node (commitments are per DID).
 */
export function prepareCreates(count: number, anchorOrigin: string): PreparedCreate[] {
  const recoveryKey = KeyPair.generate('Ed25519');
  const updateKey = KeyPair.generate('Ed25519');
  const creates: PreparedCreate[] = [];
  for (let i = 0; i < count; i++) {
    const built = createRequest({
      recoveryKey,
      updateKey,
      anchorOrigin,
      patches: [
        addPublicKeys(
          documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
        ),
      ],
    });
    creates.push({ did: built.did, body: serializeRequest(built.request) });
  }
  return creates;
}
