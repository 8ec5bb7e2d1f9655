import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '@anchor/common/config';

/** Every service of the local federation listens on loopback: it is a development federation. */
const HOST = '127.0.0.1';
/** The vct-log alias the nodes use (the log's default `--logs main:rw`). */
const LOG_ALIAS = 'main';
const LAYOUT_FILE = 'federation.json';

export interface ServicePlace {
  /** `vct-log`, `node1`, `node2`, ...: the prefix of its output lines and the name of its data directory. */
  name: string;
  port: number;
  /** `http://127.0.0.1:<port>`: its listen address and external endpoint at once. */
  url: string;
  dataDir: string;
}

export interface FederationLayout {
  dataDir: string;
  log: ServicePlace & { /** The log alias URL a node is given with `POST /log`. */ logUrl: string };
  nodes: ServicePlace[];
  /** The kms every service signs through, when the federation runs one. */
  kms?: ServicePlace;
  /** The credential service, when the federation runs one: its issuers' DIDs live on node1. */
  vcs?: ServicePlace;
}

export interface LayoutOptions {
  dataDir: string;
  nodes: number;
  logPort: number;
  /** Node i (1-based) listens on firstNodePort + i - 1. */
  firstNodePort: number;
  /** Runs a kms on this port, through which every service signs. */
  kmsPort?: number;
  /** Runs a vcs on this port. */
  vcsPort?: number;
}

/** Where each service of the federation listens and keeps its data: `<dataDir>/<name>`. */
export function planFederation(options: LayoutOptions): FederationLayout {
  const dataDir = resolve(options.dataDir);
  const place = (name: string, port: number): ServicePlace => ({
    name,
    port,
    url: `http://${HOST}:${port}`,
    dataDir: join(dataDir, name),
  });
  const log = place('vct-log', options.logPort);
  const nodes = Array.from({ length: options.nodes }, (_, i) => place(`node${i + 1}`, options.firstNodePort + i));
  const kms = options.kmsPort === undefined ? undefined : place('kms', options.kmsPort);
  const vcs = options.vcsPort === undefined ? undefined : place('vcs', options.vcsPort);
  const ports = [log, ...nodes, ...(kms ? [kms] : []), ...(vcs ? [vcs] : [])].map((service) => service.port);
  if (new Set(ports).size !== ports.length)
    throw new ConfigError(`the kms, vcs, log and node ports must differ (${ports.join(', ')})`);
  return {
    dataDir,
    log: { ...log, logUrl: `${log.url}/${LOG_ALIAS}` },
    nodes,
    ...(kms ? { kms } : {}),
    ...(vcs ? { vcs } : {}),
  };
}

export interface RecordedLayout {
  log: string;
  /** Every node this data directory has held, by name. */
  nodes: Record<string, string>;
  /** The nodes of the latest start, in order. */
  lastStarted: string[];
  /** Whether its services sign through a kms (their keys are there) or with local keys. */
  signing?: 'kms' | 'local';
}

/**
 * Records the URLs the federation was first started with, and refuses a restart that would move a service
 * whose data is kept: a node's URL is its identity (service id, DID hints, the follows others stored), so
 * the same data under another port would be a different, broken node. More nodes than before is fine;
 * returns the names of earlier nodes left out of this start.
 */
export async function keepLayoutStable(layout: FederationLayout): Promise<string[]> {
  await mkdir(layout.dataDir, { recursive: true });
  const file = join(layout.dataDir, LAYOUT_FILE);
  const current: RecordedLayout = {
    log: layout.log.url,
    nodes: Object.fromEntries(layout.nodes.map((node) => [node.name, node.url])),
    lastStarted: layout.nodes.map((node) => node.name),
    signing: layout.kms ? 'kms' : 'local',
  };
  const recorded = await readRecordedLayout(layout.dataDir);
  if (recorded !== undefined) {
    const moved = [
      ...(recorded.log !== current.log ? [`vct-log ${recorded.log} -> ${current.log}`] : []),
      ...Object.entries(recorded.nodes)
        .filter(([name, url]) => current.nodes[name] !== undefined && current.nodes[name] !== url)
        .map(([name, url]) => `${name} ${url} -> ${current.nodes[name]}`),
    ];
    // A service's keys are its identity too: the same data signing with other keys would be another service.
    const signing = recorded.signing ?? 'local';
    if (signing !== current.signing)
      throw new ConfigError(
        `${layout.dataDir} belongs to a federation whose services sign with ${signing === 'kms' ? 'keys in the kms' : 'local keys'}: start it ${signing === 'kms' ? 'with' : 'without'} the kms, or remove the directory to begin afresh`,
      );
    if (moved.length > 0) {
      throw new ConfigError(
        `${layout.dataDir} belongs to a federation started on other ports (${moved.join('; ')}): start it on the same ports, or remove the directory to begin afresh`,
      );
    }
    current.nodes = { ...recorded.nodes, ...current.nodes };
  }
  await writeFile(file, `${JSON.stringify(current, null, 2)}\n`);
  return Object.keys(current.nodes).filter((name) => !current.lastStarted.includes(name));
}

/** What `keepLayoutStable` recorded in `dataDir`, or undefined when no federation was started there. */
export async function readRecordedLayout(dataDir: string): Promise<RecordedLayout | undefined> {
  const file = join(resolve(dataDir), LAYOUT_FILE);
  return existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as RecordedLayout) : undefined;
}
