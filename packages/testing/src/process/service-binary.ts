import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { startProcess, type ServiceProcess, type StartOptions } from './service-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The built entry point of `services/<service>`: process tests run it exactly as production does. Missing, it
 * is an error saying how to build it; older than the service's sources, a warning.
 */
export function builtServiceMain(service: string): string {
  const dir = join(REPO_ROOT, 'services', service);
  const main = join(dir, 'dist', 'main.js');
  if (!existsSync(main))
    throw new Error(`${main} is missing: build first with \`npx tsc -b services/${service}\` from the repository root`);
  const source = join(dir, 'src', 'server.ts');
  const built = join(dir, 'dist', 'server.js');
  if (!existsSync(built) || statSync(source).mtimeMs > statSync(built).mtimeMs)
    console.warn(`${service}: dist/ is older than src/; rebuild before trusting process tests`);
  return main;
}

export interface LoopbackService {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Starts the binary (again, on the same port and arguments); ready once `/healthcheck` answers 200. */
  start(): Promise<ServiceProcess>;
}

/**
 * A service binary on a free loopback port, started with `--host-url 127.0.0.1:<port>` and `args`, as often as a
 * test restarts it.
 */
export async function loopbackService(
  main: string,
  args: readonly string[],
  options: Omit<StartOptions, 'args' | 'readyUrl' | 'readyStatus'> = {},
): Promise<LoopbackService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    start: () =>
      startProcess(main, {
        ...options,
        args: ['--host-url', `127.0.0.1:${port}`, ...args],
        readyUrl: `${url}/healthcheck`,
        readyStatus: (status) => status === 200,
      }),
  };
}
