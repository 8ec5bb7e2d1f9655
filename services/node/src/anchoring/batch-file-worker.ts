/**
 * Worker thread of `batch-file-builder.ts`: builds batch files off the event loop.
 */
import { parentPort } from 'node:worker_threads';
import { runBuildTask, type BuildRequest } from './batch-file-builder.js';

parentPort?.on('message', (request: BuildRequest) => {
  parentPort?.postMessage(runBuildTask(request));
});
