import { checkDidWebHost, isDid, resolveDidKey, type ServiceEndpoint } from '@anchor/common/did';
import { AppError, badRequest, errorMessage } from '@anchor/common/errors';
import { answer, jsonBody, type Handler } from '@anchor/common/http';
import { authorizeKeystore } from '../access/keystore-access.js';
import type { DidCreation } from '../dids/did-creation.js';
import type { Keystores } from '../keystores/keystores.js';
import type { KmsMetrics } from '../metrics.js';
import { KeystoreScope, KmsOperations } from './kms-operations.js';
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
  const ops = new KmsOperations(metrics, scope);
  return {
    createKeystore: ops.op('create_keystore', async (req) => {
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
          throw AppError.is(error) && error.code === 'bad_request' ? badRequest(`controller: ${error.message}`) : error;
        });
      const { record, capability } = await keystores.create(body.controller);
      const location = `${baseUrl()}/v1/keystores/${record.id}`;
      return answer({
        json: { id: record.id, location, controller: record.controller, capability },
        status: 201,
        headers: { Location: location },
      });
    }),

    getKeystore: ops.op('get_keystore', async (req) => {
      const keystore = await scope.keystore(req);
      return answer({ json: { id: keystore.id, controller: keystore.controller, createdAt: keystore.createdAt } });
    }),

    createDid: ops.op('create_did', async (req) => {
      const body = jsonBody(req, CREATE_DID);
      const keystore = await keystores.get(body.keystoreID);
      authorizeKeystore(keystores, keystore, req);
      const created = await dids.create(keystore, body.method ?? dids.defaultMethod);
      return answer({ json: created, status: 201 });
    }),
  } satisfies Record<string, Handler>;
}
