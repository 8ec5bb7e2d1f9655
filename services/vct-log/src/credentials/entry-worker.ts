/**
 * An entry worker thread (see entry-preparer.ts): receives add-vc bodies with their timestamps and answers
 * with the prepared credentials, or with an error's code and message. Its JSON-LD engine keeps its own
 * context caches warm.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { KeyPair } from '@anchor/common/crypto';
import { AppError } from '@anchor/common/errors';
import { LogSigner } from '../signing/log-signer.js';
import { prepareCredential, type PrepareReply, type PrepareRequest, type WorkerSetup } from './entry-preparation.js';

const setup = workerData as WorkerSetup;
const signer = new LogSigner(KeyPair.fromPem(setup.signingKeyPem));
const port = parentPort;
if (!port) throw new Error('entry-worker must run as a worker thread');

port.on('message', ({ id, body, timestamp, allowedIssuers }: PrepareRequest) => {
  prepareCredential(body, timestamp, allowedIssuers, setup.allowUndefinedTerms, signer).then(
    (prepared) => port.postMessage({ id, prepared } satisfies PrepareReply),
    (error: unknown) =>
      port.postMessage({
        id,
        error: { code: error instanceof AppError ? error.code : undefined, message: error instanceof Error ? error.message : String(error) },
      } satisfies PrepareReply),
  );
});
