import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, type Principal } from '@anchor/common/http';
import { forbidden, unauthorized } from '@anchor/common/errors';
import type { KeystoreRecord } from '../keystores/keystore-records.js';
import type { Keystores } from '../keystores/keystores.js';

const CHALLENGE = { headers: { 'WWW-Authenticate': 'Bearer' } };

/**
 * Who may use a keystore: the holder of its capability (`Authorization: Bearer <capability>`), or its
 * controller, proving it with an HTTP signature by a verification method of the controller DID (the kit's
 * authenticator verified it and names the DID as `principal.actor`). Nothing else: the kms's own API tokens
 * do not open keystores. 401 without credentials or with a wrong capability; 403 for a valid signature by
 * another DID.
 */
export function authorizeKeystore(
  keystores: Keystores,
  keystore: KeystoreRecord,
  request: { headers: IncomingHttpHeaders; principal: Principal },
): void {
  const token = bearerToken(request.headers.authorization);
  if (token !== undefined && token !== '') {
    if (keystores.capabilityMatches(keystore, token)) return;
    throw unauthorized(`the bearer token is not the capability of keystore ${keystore.id}`, CHALLENGE);
  }
  if (request.principal.kind === 'signature') {
    if (request.principal.actor === keystore.controller) return;
    throw forbidden(`${request.principal.actor} does not control keystore ${keystore.id}`);
  }
  throw unauthorized(
    `keystore ${keystore.id} needs its capability (Authorization: Bearer) or an HTTP signature by its controller`,
    CHALLENGE,
  );
}
