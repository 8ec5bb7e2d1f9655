import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeAdminClient } from '@anchor/common/clients';
import { startProcess, type ServiceProcess } from '@anchor/testing/process';
import { keepLayoutStable, planFederation, type FederationLayout, type ServicePlace } from './federation-layout.js';
import { wireFederation } from './federation-wiring.js';
import { ensureIssuerProfile } from './federation-init.js';
import { initKeystores } from './kms-init.js';
import { LineForwarder } from './line-forwarder.js';
import { serviceBin } from './service-bin.js';
import { SERVICES, type LaunchSettings, type ServiceEntry } from './service-table.js';

export interface LocalFederationOptions {
  /** Each service keeps its data in `<dataDir>/<name>` across restarts. */
  dataDir: string;
  /** Default 2. */
  nodes?: number;
  /** Default 8070. */
  logPort?: number;
  /** Node i listens on firstNodePort + i - 1. Default 8081. */
  firstNodePort?: number;
  /**
   * Runs a kms on this port (its data in `<dataDir>/kms`) and every service signs through it: each gets a
   * keystore, created once (`<dataDir>/kms-credentials`), in which it creates its keys on first start.
   * Default: no kms, local keys.
   */
  kmsPort?: number;
  /**
   * Runs a vcs on this port (its data in `<dataDir>/vcs`), issuing with DIDs it creates on node1, logging what it
   * issues in the log, and signing through the kms when there is one; `demoProfile` is created on it once.
   */
  vcsPort?: number;
  /** The issuer profile created on the vcs when absent. Default `demo-issuer`. */
  demoProfile?: string;
  /** Set on every node when given; otherwise each node keeps its own (default 100% batch and system). */
  witnessPolicy?: string;
  /** Level spec passed to every service (`--log-level`). Default info. */
  logLevel?: string;
  /** Line format of every service (default text: the federation's output is read by a person). */
  logFormat?: 'text' | 'json';
  /** Extra flags for every node, e.g. `['--batch-writer-timeout', '200ms']`. */
  nodeArgs?: readonly string[];
  /** Each line a service prints, with the service's name. Default: not shown. */
  onOutput?: (service: string, line: string) => void;
  /** What the launcher itself does (starting, wiring changes). Default: not shown. */
  onProgress?: (message: string) => void;
  /** Per service. Default 60 s. */
  readyTimeoutMs?: number;
}

export interface LocalFederation {
  readonly layout: FederationLayout;
  /** Admin clients of the nodes, in layout order. */
  readonly admins: readonly NodeAdminClient[];
  /** Resolves when a service exits by itself (crashed, or killed from outside): name and exit status. */
  readonly exited: Promise<{ service: string; code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the nodes, then the log (nodes may be handing the log a credential), each with SIGTERM. */
  stop(): Promise<void>;
}

/**
 * Runs a development federation on loopback: a vct-log and N nodes started bare as their binaries
 * (embedded LMDB, in-process queues), each with `http://127.0.0.1:<port>` as its external endpoint and
 * accept-list policies for follows and witness invitations; then wires them through their HTTP APIs (see
 * `wireFederation`). Data stays under `dataDir`, so a restart continues the same federation.
 */
export async function startLocalFederation(options: LocalFederationOptions): Promise<LocalFederation> {
  const layout = planFederation({
    dataDir: options.dataDir,
    nodes: options.nodes ?? 2,
    logPort: options.logPort ?? 8070,
    firstNodePort: options.firstNodePort ?? 8081,
    ...(options.kmsPort !== undefined ? { kmsPort: options.kmsPort } : {}),
    ...(options.vcsPort !== undefined ? { vcsPort: options.vcsPort } : {}),
  });
  const progress = options.onProgress ?? (() => undefined);
  const absent = await keepLayoutStable(layout);
  if (absent.length > 0) {
    progress(
      `not started: ${absent.join(', ')} from an earlier start; the others still count them as followers and witnesses, so their anchors wait for them (start with as many nodes as before, or remove the data directory)`,
    );
  }
  const settings: LaunchSettings = { logLevel: options.logLevel ?? 'info', logFormat: options.logFormat ?? 'text' };
  const running: ServiceProcess[] = [];
  const admins = layout.nodes.map((node) => new NodeAdminClient({ url: node.url }));

  let kms: ServiceProcess | undefined;
  let vcs: ServiceProcess | undefined;

  const stop = async (): Promise<void> => {
    for (const admin of admins) admin.close();
    // First: it resolves through node1 and logs through the log until it stops.
    await vcs?.stop(30_000);
    const [log, ...nodes] = running;
    await Promise.all(nodes.map((service) => service.stop(30_000)));
    await log?.stop(30_000);
    // Last: the others sign through it until they stop.
    await kms?.stop(30_000);
  };

  try {
    let kmsFlags: (name: string) => Promise<string[]> = async () => [];
    if (layout.kms) {
      progress(`starting the kms on ${layout.kms.url}`);
      kms = await startService(SERVICES.kms, layout.kms, settings, [], options);
      kmsFlags = await keystoresIn(layout.kms.url, layout, progress);
    }
    // The log first: a node that already uses it reports unhealthy until it answers.
    progress(`starting vct-log on ${layout.log.url}`);
    running.push(await startService(SERVICES['vct-log'], layout.log, settings, await kmsFlags('vct-log'), options));
    progress(`starting ${layout.nodes.length} nodes on ${layout.nodes.map((node) => node.url).join(', ')}`);
    const nodes = await Promise.allSettled(
      layout.nodes.map(async (node) =>
        startService(
          SERVICES.node,
          node,
          settings,
          [...(await kmsFlags(node.name)), ...(options.nodeArgs ?? [])],
          options,
        ),
      ),
    );
    for (const node of nodes) if (node.status === 'fulfilled') running.push(node.value);
    const failed = nodes.find((node) => node.status === 'rejected');
    if (failed) throw failed.reason;
    progress('wiring the nodes: accept lists, log, follows, witness invitations');
    await wireFederation(admins, {
      logUrl: layout.log.logUrl,
      ...(options.witnessPolicy === undefined ? {} : { witnessPolicy: options.witnessPolicy }),
      onChange: progress,
    });
    if (layout.vcs) {
      const node1 = layout.nodes[0]!;
      progress(`starting the vcs on ${layout.vcs.url} (issuer DIDs on ${node1.name})`);
      vcs = await startService(
        SERVICES.vcs,
        layout.vcs,
        settings,
        ['--node-url', node1.url, '--vct-url', layout.log.logUrl, ...(await kmsFlags('vcs'))],
        options,
      );
      await ensureIssuerProfile({ url: layout.vcs.url }, options.demoProfile ?? 'demo-issuer', 60_000, progress);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const exited = Promise.race(
    [...(kms ? [kms] : []), ...(vcs ? [vcs] : []), ...running].map(async (service) => ({
      service: service.name,
      ...(await service.exited),
    })),
  );
  return { layout, admins, exited, stop };
}

/**
 * A keystore per service in the kms (`kms-init`'s files under `<dataDir>/kms-credentials`, created once and
 * reused on every start), and the flags that make a service sign with keys in its keystore.
 */
async function keystoresIn(
  kmsUrl: string,
  layout: FederationLayout,
  progress: (message: string) => void,
): Promise<(name: string) => Promise<string[]>> {
  const dir = join(layout.dataDir, 'kms-credentials');
  const names = [layout.log.name, ...layout.nodes.map((node) => node.name), ...(layout.vcs ? [layout.vcs.name] : [])];
  await initKeystores(
    { kmsUrl, keystores: names, output: 'files', dir, secretPrefix: 'kms-', token: undefined, waitTimeout: 60_000 },
    progress,
  );
  // `--flag=value`: a capability is base64url and may begin with '-', which would read as a flag of its own.
  return async (name) => [
    `--kms-url=${kmsUrl}`,
    `--kms-keystore=${(await readFile(join(dir, `${name}.keystore`), 'utf8')).trim()}`,
    `--kms-capability=${(await readFile(join(dir, `${name}.capability`), 'utf8')).trim()}`,
  ];
}

/** One instance of `entry` at `place`, started as its package's bin; resolves once it reports ready. */
async function startService(
  entry: ServiceEntry,
  place: ServicePlace,
  settings: LaunchSettings,
  extraArgs: readonly string[],
  options: LocalFederationOptions,
): Promise<ServiceProcess> {
  const out = new LineForwarder((line) => options.onOutput?.(place.name, line));
  const err = new LineForwarder((line) => options.onOutput?.(place.name, line));
  const service = await startProcess(serviceBin(entry.packageName), {
    name: place.name,
    args: [
      '--host-url',
      new URL(place.url).host,
      '--data-dir',
      place.dataDir,
      ...entry.flags(place, settings),
      ...extraArgs,
    ],
    // Own group: a terminal's Ctrl-C reaches the launcher only, which stops each service once.
    ownProcessGroup: true,
    onOutput: (chunk, stream) => (stream === 'stdout' ? out : err).write(chunk),
    readyUrl: `${place.url}${entry.readiness.path}`,
    readyStatus: entry.readiness.ready,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  void service.exited.then(() => {
    out.flush();
    err.flush();
  });
  return service;
}
