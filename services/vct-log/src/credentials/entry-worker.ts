/**
 * An entry worker thread (see entry-preparer.ts): prepares add-vc bodies with the log's key. Its JSON-LD
 * engine keeps its own context caches warm.
 */
import { workerData } from 'node:worker_threads';
import { KeyPair } from '@anchor/common/crypto';
import { serveTasks } from '@anchor/common/workers';
import { LogSigner } from '../signing/log-signer.js';
import { prepareCredential, type PreparedCredential, type PrepareTask, type WorkerSetup } from './entry-preparation.js';

const setup = workerData as WorkerSetup;
const signer = new LogSigner(KeyPair.fromPem(setup.signingKeyPem));

serveTasks<PrepareTask, PreparedCredential>(({ body, timestamp, allowedIssuers }) =>
  prepareCredential(body, timestamp, allowedIssuers, setup.allowUndefinedTerms, signer),
);
