/**
 * Starts the fixture service as its child, prints the child's pid, then idles. The process test kills
 * this parent with SIGKILL and checks that the child's watchdog stops the child.
 */
import { fileURLToPath } from 'node:url';
import { startProcess } from './index.js';

const child = await startProcess(fileURLToPath(new URL('./fixture-service.test-helpers.ts', import.meta.url)), {
  args: ['--host-url', '127.0.0.1:0'],
  readyLine: 'listening',
});
console.log(`child-pid ${child.pid}`);
setInterval(() => undefined, 60_000);
