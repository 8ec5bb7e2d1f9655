/**
 * Real node and vct-log processes for the federation tests. Each node comes with the node's own
 * administrator client (`NodeAdminClient`, the one the local federation wires nodes with), so a federation
 * is set up the way an operator does: only through the nodes' HTTP APIs (accept lists, outbox Follow /
 * Invite, `/policy`, `/log`). No tokens are configured, so administrator calls carry none.
 */
import { NodeAdminClient } from '@anchor/common/clients';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';

export interface RunningNode {
  name: string;
  url: string;
  port: number;
  /** The ActivityPub service id of a bare start: `<external endpoint>/services/node`. */
  service: string;
  dir: TempDir;
  process: ServiceProcess;
  admin: NodeAdminClient;
}

/**
 * A bare start (`--host-url`, `--external-endpoint http://127.0.0.1:<port>`, `--data-dir`) plus `args`; a
 * restart reuses the port and the data directory.
 */
export async function startNode(
  name: string,
  dir: TempDir,
  args: readonly string[],
  port?: number,
): Promise<RunningNode> {
  const listen = port ?? (await freePort());
  const url = `http://127.0.0.1:${listen}`;
  const child = await startProcess(serviceBin('@anchor/node'), {
    name,
    args: ['--host-url', `127.0.0.1:${listen}`, '--external-endpoint', url, '--data-dir', dir.path, ...args],
    env: { ANCHOR_LOG_LEVEL: process.env.FEDERATION_TEST_LOG_LEVEL ?? 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return {
    name,
    url,
    port: listen,
    service: `${url}/services/node`,
    dir,
    process: child,
    admin: new NodeAdminClient({ url }),
  };
}

export async function startVctLog(
  dir: TempDir,
  args: readonly string[] = [],
): Promise<{ process: ServiceProcess; url: string; logUrl: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(serviceBin('@anchor/vct-log'), {
    name: 'vct-log',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, ...args],
    env: { VCT_LOG_LEVEL: 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { process, url, logUrl: `${url}/main` };
}
