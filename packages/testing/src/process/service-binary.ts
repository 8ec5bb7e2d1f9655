import { existsSync, readdirSync, statSync } from 'node:fs';
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
  // tsc -b leaves an output it would write unchanged untouched, but rewrites its build info on every build.
  const buildInfo = join(dir, 'dist', '.tsbuildinfo');
  if (!existsSync(buildInfo) || newestSourceMs(join(dir, 'src')) > statSync(buildInfo).mtimeMs)
    console.warn(`${service}: dist/ is older than src/; rebuild before trusting process tests`);
  return main;
}

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts'))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
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
