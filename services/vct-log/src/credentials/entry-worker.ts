/**
 * An entry worker thread (see entry-preparer.ts): prepares add-vc bodies with the log's key and the
 * service's JSON-LD contexts (kept in step by the preparer's `ContextBroadcast`). Its JSON-LD engine keeps
 * its own context caches warm.
 */
import { workerData } from 'node:worker_threads';
import { WorkerContexts } from '@anchor/common/jsonld-contexts';
import { serveTasks } from '@anchor/common/workers';
import { LogSigner } from '../signing/log-signer.js';
import { prepareCredential, type PreparedCredential, type PrepareTask, type WorkerSetup } from './entry-preparation.js';

const setup = workerData as WorkerSetup;
const signer = await LogSigner.fromSetup(setup.signing);
const contexts = new WorkerContexts(setup.contexts);

serveTasks<PrepareTask, PreparedCredential>(async ({ body, timestamp, allowedIssuers, contextsVersion }) => {
  await contexts.upTo(contextsVersion);
  return prepareCredential(body, timestamp, allowedIssuers, setup.allowUndefinedTerms, signer, contexts.documentLoader);
});
