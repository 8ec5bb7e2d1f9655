import { createHash } from 'node:crypto';
import { KeyPair } from '@anchor/common/crypto';
import {
  addPublicKeys,
  addServices,
  createRequest,
  documentKey,
  removeServices,
  serializeRequest,
  service,
  updateRequest,
} from '@anchor/sidetree';

/**
 * The scale bench's DIDs, reproducible from their number in any process: DID `n` has its own Ed25519 document
 * key; its recovery key and its chain of update keys (K0 at the create, Kj after its j-th update) are shared
 * by every DID, which changes nothing for the node (commitments are per DID) and lets any loader process build
 * update j of any DID without keeping keys.
 */
const seeded = (label: string): KeyPair =>
  KeyPair.fromSeed('Ed25519', createHash('sha256').update(`anchor-scale-bench:${label}`).digest());

const RECOVERY = seeded('recovery');
const UPDATE_KEYS: KeyPair[] = [];
const updateKey = (j: number): KeyPair => (UPDATE_KEYS[j] ??= seeded(`update-${j}`));

export function createBody(anchorOrigin: string): { suffix: string; body: Buffer } {
  const built = createRequest({
    recoveryKey: RECOVERY,
    updateKey: updateKey(0),
    anchorOrigin,
    patches: [
      addPublicKeys(
        documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
      ),
    ],
  });
  return { suffix: built.didSuffix, body: serializeRequest(built.request) };
}

/** Update `j` (1-based) of a DID: reveals K(j-1), commits to Kj, and moves its one service to `svc-j`. */
export function updateBody(suffix: string, j: number): Buffer {
  const patches = [
    ...(j > 1 ? [removeServices(`svc-${j - 1}`)] : []),
    addServices(service(`svc-${j}`, 'LinkedDomains', `https://example.com/${j}`)),
  ];
  return serializeRequest(
    updateRequest({ didSuffix: suffix, updateKey: updateKey(j - 1), nextUpdateKey: updateKey(j), patches }),
  );
}
