/**
 * The compose file run without a container engine: `docker-compose config` resolves it, the Dockerfile gives
 * each target's entry point and image environment, and every project service becomes a local process with
 * exactly that environment, its host names and container ports mapped to loopback ports, its volumes to
 * temporary directories, MongoDB to the test's MongoDB-wire server and RabbitMQ to the local broker.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';

export interface ComposeService {
  build?: { context: string; dockerfile?: string; target?: string };
  image?: string;
  environment?: Record<string, string | number | boolean | null>;
  command?: string[] | string;
  depends_on?: Record<string, { condition?: string }> | string[];
  volumes?: Array<string | { type?: string; source?: string; target: string }>;
  restart?: string;
}

export interface ComposeProject {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** `docker-compose config` of the file: the project as compose itself reads it (interpolation, merges, anchors). */
export async function resolveCompose(file: string, env: Record<string, string> = {}): Promise<ComposeProject> {
  const { stdout } = await promisify(execFile)('docker-compose', ['-f', file, 'config'], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    timeout: 60_000,
  });
  return parseYaml(stdout) as ComposeProject;
}

export interface DockerTarget {
  name: string;
  /** Environment the image sets (its own ENV lines after its parents'). */
  env: Record<string, string>;
  /** ENTRYPOINT in exec form. */
  entrypoint: string[];
  healthcheck?: string;
}

/**
 * The stages of a Dockerfile: `FROM <parent> AS <name>`, `ENV a=b c=d` and `ENTRYPOINT [...]` (exec form),
 * inherited from a parent stage. Only what a process needs to run as the image would.
 */
export function parseDockerfile(text: string): Map<string, DockerTarget> {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const stages = new Map<string, DockerTarget>();
  let current: DockerTarget | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      const parent = stages.get(from[1]!);
      current = {
        name: from[2] ?? from[1]!,
        env: { ...(parent?.env ?? {}) },
        entrypoint: [...(parent?.entrypoint ?? [])],
      };
      stages.set(current.name, current);
      continue;
    }
    if (!current) continue;
    const env = /^ENV\s+(.*)$/i.exec(line);
    if (env)
      for (const [, k, v] of env[1]!.matchAll(/(\w+)=("[^"]*"|\S*)/g)) current.env[k!] = v!.replace(/^"|"$/g, '');
    const entry = /^ENTRYPOINT\s+(\[.*\])$/i.exec(line);
    if (entry) current.entrypoint = JSON.parse(entry[1]!) as string[];
  }
  return stages;
}

export async function readDockerfile(path: string): Promise<Map<string, DockerTarget>> {
  return parseDockerfile(await readFile(path, 'utf8'));
}

export interface ProcessPlan {
  service: string;
  /** Directories standing in for its volumes (to create before it starts). */
  volumes: string[];
  /** Repository-relative script (the image's WORKDIR is the repository root). */
  script: string;
  args: string[];
  env: Record<string, string>;
  /** Loopback URL of the service's own listener, when it listens. */
  url?: string;
  dependsOn: string[];
}

export interface PlanInputs {
  /** A free loopback port for every project service that listens. */
  ports: Record<string, number>;
  /** The directory standing in for a named volume (or a bind mount's source), shared by every service mounting it. */
  volumeDir: (source: string) => string;
  /** MongoDB-wire server standing in for the `mongo` service. */
  mongoUrl: string;
  /** The local broker (host:port) standing in for `rabbitmq`. */
  amqpHost: string;
  /** Compose services replaced by those stand-ins. */
  infrastructure: readonly string[];
}

const LISTEN = /^0\.0\.0\.0:(\d+)$/;

/**
 * Turns each project service (one with a `build` target) into a process plan. Every compose host name in an
 * environment value must be mapped (a project service's `<name>:<port>`, `mongo`, `rabbitmq`), else this
 * throws: a value that would reach nothing in the compose network fails here too.
 */
export function planProcesses(
  project: ComposeProject,
  targets: Map<string, DockerTarget>,
  inputs: PlanInputs,
): ProcessPlan[] {
  const names = Object.keys(project.services);
  const listenPort = (service: string): string | undefined => {
    const env = environmentOf(project, targets, service);
    for (const value of Object.values(env)) {
      const match = LISTEN.exec(value);
      if (match) return match[1];
    }
    return undefined;
  };
  const hostMap = new Map<string, string>();
  for (const name of names) {
    if (inputs.infrastructure.includes(name) || !project.services[name]!.build) continue;
    const port = listenPort(name);
    const local = inputs.ports[name];
    if (port !== undefined && local !== undefined) hostMap.set(`${name}:${port}`, `127.0.0.1:${local}`);
  }

  const plans: ProcessPlan[] = [];
  for (const name of names) {
    const service = project.services[name]!;
    if (inputs.infrastructure.includes(name) || !service.build?.target) continue;
    const target = targets.get(service.build.target);
    if (!target) throw new Error(`${name}: the Dockerfile has no target ${service.build.target}`);
    const [runtime, script, ...entryArgs] = target.entrypoint;
    if (runtime !== 'node' || script === undefined)
      throw new Error(`${name}: entry point ${JSON.stringify(target.entrypoint)} is not "node <script>"`);
    const mounts = (service.volumes ?? []).map((volume) => {
      if (typeof volume !== 'string') return { source: volume.source ?? volume.target, target: volume.target };
      const [source, target] = volume.split(':');
      return { source: source!, target: target ?? source! };
    });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(environmentOf(project, targets, name))) {
      env[key] = rewriteValue(name, value, { hostMap, mounts, inputs, names });
    }
    const port = listenPort(name);
    const local = inputs.ports[name];
    const command =
      service.command === undefined
        ? []
        : Array.isArray(service.command)
          ? service.command
          : service.command.split(/\s+/);
    plans.push({
      service: name,
      volumes: mounts.map((mount) => inputs.volumeDir(mount.source)),
      script,
      args: [...entryArgs, ...command],
      env,
      ...(port !== undefined && local !== undefined ? { url: `http://127.0.0.1:${local}` } : {}),
      dependsOn: Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {}),
    });
  }
  return plans;
}

function environmentOf(
  project: ComposeProject,
  targets: Map<string, DockerTarget>,
  name: string,
): Record<string, string> {
  const service = project.services[name]!;
  const image = service.build?.target ? (targets.get(service.build.target)?.env ?? {}) : {};
  const env: Record<string, string> = { ...image };
  for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = value === null ? '' : String(value);
  return env;
}

function rewriteValue(
  service: string,
  value: string,
  context: {
    hostMap: Map<string, string>;
    mounts: Array<{ source: string; target: string }>;
    inputs: PlanInputs;
    names: string[];
  },
): string {
  const { hostMap, mounts, inputs, names } = context;
  const listen = LISTEN.exec(value);
  if (listen) {
    const local = hostMap.get(`${service}:${listen[1]}`);
    if (!local) throw new Error(`${service}: listens on ${value} but has no loopback port`);
    return local;
  }
  for (const { source, target } of mounts) {
    if (value === target || value.startsWith(`${target}/`))
      return inputs.volumeDir(source) + value.slice(target.length);
  }
  return value
    .split(',')
    .map((part) => rewriteUrl(service, part, hostMap, inputs, names))
    .join(',');
}

function rewriteUrl(
  service: string,
  value: string,
  hostMap: Map<string, string>,
  inputs: PlanInputs,
  names: string[],
): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:([^@/]*)@)?([^/:?#]+)(?::(\d+))?(.*)$/i.exec(value);
  if (!match) return value;
  const [, scheme, userinfo, host, port, rest] = match;
  if (!names.includes(host!)) return value;
  if (scheme === 'mongodb') {
    const stand = new URL(inputs.mongoUrl);
    const original = new URL(value);
    // The stand-in is a single server: the replica set named for the real one is not there.
    original.searchParams.delete('replicaSet');
    stand.pathname = original.pathname === '/' ? stand.pathname : original.pathname;
    for (const [k, v] of original.searchParams) stand.searchParams.set(k, v);
    return stand.toString();
  }
  if (scheme === 'amqp' || scheme === 'amqps')
    return `${scheme}://${userinfo ? `${userinfo}@` : ''}${inputs.amqpHost}${rest}`;
  const local = hostMap.get(`${host}:${port ?? (scheme === 'https' ? '443' : '80')}`);
  if (!local) throw new Error(`${service}: ${value} names ${host}:${port ?? ''}, which no service listens on`);
  return `${scheme}://${local}${rest}`;
}

/** Services ordered so that each comes after what it depends on. */
export function startOrder(plans: readonly ProcessPlan[]): ProcessPlan[] {
  const byName = new Map(plans.map((plan) => [plan.service, plan]));
  const ordered: ProcessPlan[] = [];
  const visiting = new Set<string>();
  const visit = (plan: ProcessPlan): void => {
    if (ordered.includes(plan)) return;
    if (visiting.has(plan.service)) throw new Error(`depends_on cycle through ${plan.service}`);
    visiting.add(plan.service);
    for (const dependency of plan.dependsOn) {
      const next = byName.get(dependency);
      if (next) visit(next);
    }
    ordered.push(plan);
  };
  for (const plan of plans) visit(plan);
  return ordered;
}
