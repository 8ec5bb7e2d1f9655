/**
 * Helpers for tests and benches that run real processes: free loopback ports, service processes (with
 * captured output, readiness by URL or log line, SIGTERM/SIGKILL stops, and a watchdog so none outlives
 * the test run), temp directories, and a polling `waitFor`.
 */
export {
  startProcess,
  runProcess,
  stopAllProcesses,
  waitForHttp,
  ServiceProcess,
  type ProcessOptions,
  type StartOptions,
  type ExitInfo,
  type RunResult,
  type WaitForHttpOptions,
} from './service-process.js';
export { ephemeralRangeStart, freePort, freePortRun } from './free-port.js';
export { builtServiceMain, loopbackService, type LoopbackService } from './service-binary.js';
export { makeTempDir, type TempDir } from './temp-dir.js';
export { waitFor, type WaitOptions } from './wait-for.js';
