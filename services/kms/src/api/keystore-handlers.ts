import { checkDidWebHost, isDid, resolveDidKey, type ServiceEndpoint } from '@anchor/common/did';
import { AppError, badRequest, errorMessage } from '@anchor/common/errors';
import { jsonBody, type FastHandler } from '@anchor/common/http';
import { authorizeKeystore } from '../access/keystore-access.js';
import type { DidCreation } from '../dids/did-creation.js';
import type { Keystores } from '../keystores/keystores.js';
import type { KmsMetrics } from '../metrics.js';
import { asAppError, json, KeystoreScope } from './kms-operations.js';
import { CREATE_DID, CREATE_KEYSTORE } from './schemas.js';

export interface KeystoreHandlersOptions {
  keystores: Keystores;
  metrics: KmsMetrics;
  dids: DidCreation;
  baseUrl: () => string;
  /** What a did:web controller's host is checked against (the SSRF guard of controller resolution). */
  endpoint: ServiceEndpoint;
}

/** Keystore creation (the kms's write tokens), a keystore's description, and DIDs with keys in a keystore. */
export function keystoreHandlers({ keystores, metrics, dids, baseUrl, endpoint }: KeystoreHandlersOptions) {
  const scope = new KeystoreScope(keystores, baseUrl);
  return {
    createKeystore: (req) =>
      metrics.measure('create_keystore', async () => {
        const body = jsonBody(req, CREATE_KEYSTORE);
        if (!isDid(body.controller)) throw badRequest('controller: a DID expected (did:<method>:<id>)');
        if (body.controller.startsWith('did:key:')) {
          // A did:key resolves offline: one that cannot would lock its keystore to the capability alone.
          try {
            resolveDidKey(body.controller);
          } catch (error) {
            throw badRequest(`controller: not a usable did:key (${errorMessage(error)})`);
          }
        }
        // A did:web the kms may never fetch (a private or link-local host) would likewise lock its keystore.
        if (body.controller.startsWith('did:web:'))
          await checkDidWebHost(body.controller, endpoint).catch((error: unknown) => {
            throw AppError.is(error) && error.code === 'bad_request'
              ? badRequest(`controller: ${error.message}`)
              : error;
          });
        const { record, capability } = await keystores.create(body.controller);
        const location = `${baseUrl()}/v1/keystores/${record.id}`;
        return json({ id: record.id, location, controller: record.controller, capability }, 201, {
          Location: location,
        });
      }),

    getKeystore: (req) =>
      metrics.measure('get_keystore', async () => {
        const keystore = await scope.keystore(req);
        return json({ id: keystore.id, controller: keystore.controller, createdAt: keystore.createdAt });
      }),

    createDid: (req) =>
      metrics.measure('create_did', async () => {
        try {
          const body = jsonBody(req, CREATE_DID);
          const keystore = await keystores.get(body.keystoreID);
          authorizeKeystore(keystores, keystore, req);
          const created = await dids.create(keystore, body.method ?? dids.defaultMethod);
          return json(created, 201);
        } catch (error) {
          throw asAppError(error);
        }
      }),
  } satisfies Record<string, FastHandler>;
}
