import { randomUUID } from 'node:crypto';
import { builtServiceMain, freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';
import { DEFAULT_QUEUE_DEFAULTS, quantizeDelay, retryBackoffs } from '@anchor/common/mq';

export interface NodeProcess {
  process: ServiceProcess;
  url: string;
  port: number;
}

/**
 * A bare start — `--host-url`, `--external-endpoint`, `--data-dir` and nothing else — plus any
 * extra arguments a test needs.
 */
export async function startNodeProcess(
  dir: TempDir,
  options: { port?: number; args?: string[] } = {},
): Promise<NodeProcess> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(builtServiceMain('node'), {
    name: `node:${port}`,
    args: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--external-endpoint',
      url,
      '--data-dir',
      dir.path,
      ...(options.args ?? []),
    ],
    env: { ANCHOR_LOG_LEVEL: 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { process, url, port };
}

export async function startVctLogProcess(
  dir: TempDir,
): Promise<{ process: ServiceProcess; url: string; logUrl: string }> {
  const main = builtServiceMain('vct-log');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(main, {
    name: `vct-log:${port}`,
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path],
    env: { VCT_LOG_LEVEL: 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { process, url, logUrl: `${url}/main` };
}

/** The node's queue topics (`<namespace>.<topic>` on the broker). */
export const NODE_TOPICS = [
  'node.anchor',
  'node.accepted',
  'node.activity.outbox',
  'node.activity.inbox',
  'node.activity.delivery',
];

/**
 * A namespace of its own for a test's node on the shared broker. The default namespace comes from the node's
 * URL, and a later test's node given the same free port would inherit this test's durable messages.
 */
export function testMqNamespace(): string {
  return `test-${randomUUID().slice(0, 8)}`;
}

/**
 * A namespace's work and dead-letter queues, and its delay queues (and old wait queues) of the given delays
 * (ms; default: those of the node's default redelivery policy, which every subscription declares).
 */
export function namespaceQueues(
  namespace: string,
  delaysMs: readonly number[] = retryBackoffs(DEFAULT_QUEUE_DEFAULTS, quantizeDelay),
): string[] {
  return NODE_TOPICS.flatMap((topic) => {
    const name = `${namespace}.${topic}`;
    const delayed = (q: string) => delaysMs.flatMap((ms) => [`${q}.delay.${ms}`, `${q}.wait.${ms}`]);
    return [name, `${name}.dead`, ...delayed(name), ...delayed(`${name}.dead`)];
  });
}
