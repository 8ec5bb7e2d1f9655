/**
 * `docker compose up` without an engine: the project's compose file, resolved by `docker-compose config`, run
 * as local processes with exactly the environment compose and the Dockerfile give each service (host names
 * mapped to loopback ports, named volumes to directories, `mongo` to the MongoDB-wire test server, `rabbitmq`
 * to the local broker with the vhosts of deploy/rabbitmq/definitions.json). The one-shot `federation-init`
 * wires the nodes; a DID created on node1 is published on all three; every service restarts and still serves
 * the DID, and the log's tree after the restart is consistent with the one before.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { verifyConsistency } from '@anchor/common/merkle';
import { createDemoDid, waitUntilPublished } from '@anchor/dev-env';
import { AMQP_URL, amqpUnavailable } from '@anchor/testing/amqp-broker';
import { startFerretDb, type MongoTestServer } from '@anchor/testing/ferretdb';
import {
  freePort,
  makeTempDir,
  runProcess,
  startProcess,
  stopAllProcesses,
  type ServiceProcess,
  type TempDir,
} from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  planProcesses,
  readDockerfile,
  resolveCompose,
  startOrder,
  type ComposeProject,
  type ProcessPlan,
} from './compose.test-helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const INFRASTRUCTURE = ['mongo', 'rabbitmq'];
const run = promisify(execFile);

/** The vhosts the compose broker is given by its definitions file, recreated empty on the local broker. */
async function recreateVhosts(): Promise<string[]> {
  const definitions = JSON.parse(await readFile(join(ROOT, 'deploy', 'rabbitmq', 'definitions.json'), 'utf8')) as {
    vhosts: Array<{ name: string }>;
  };
  const user = new URL(AMQP_URL).username || 'guest';
  const vhosts = definitions.vhosts.map((vhost) => vhost.name).filter((name) => name !== '/');
  for (const vhost of vhosts) {
    await run('rabbitmqctl', ['delete_vhost', vhost], { timeout: 30_000 }).catch(() => undefined);
    await run('rabbitmqctl', ['add_vhost', vhost], { timeout: 30_000 });
    await run('rabbitmqctl', ['set_permissions', '-p', vhost, user, '.*', '.*', '.*'], { timeout: 30_000 });
  }
  return vhosts;
}

async function composeProblem(): Promise<string | undefined> {
  try {
    await run('docker-compose', ['version'], { timeout: 30_000 });
    await run('rabbitmqctl', ['status'], { timeout: 30_000 });
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

const problem = (await amqpUnavailable()) ?? (await composeProblem());
if (problem !== undefined) {
  if (process.env['CI'] === 'true') throw new Error(`CI=true but the compose test cannot run: ${problem}`);
  console.warn(`compose-as-processes skipped: ${problem}`);
}

interface Sth {
  tree_size: number;
  sha256_root_hash: string;
  tree_head_signature: string;
}

describe.skipIf(problem !== undefined)('docker-compose.yml as local processes', () => {
  let project: ComposeProject;
  let plans: ProcessPlan[];
  let mongo: MongoTestServer;
  let dir: TempDir;
  const running = new Map<string, ServiceProcess>();
  let did: string;

  const nodeUrls = () => plans.filter((plan) => plan.service.startsWith('node')).map((plan) => plan.url!);
  const plan = (service: string) => plans.find((candidate) => candidate.service === service)!;
  const logAlias = () => `${plan('vct-log').url}/main`;

  /** `docker compose up`: services in dependency order, each one-shot job run to completion where it stands. */
  async function startServices(): Promise<void> {
    for (const service of startOrder(plans)) {
      if (service.url === undefined) {
        const job = await runJob(service);
        expect(job.code, `${service.service}: ${job.output}`).toBe(0);
        continue;
      }
      running.set(
        service.service,
        await startProcess(join(ROOT, service.script), {
          name: service.service,
          args: service.args,
          env: service.env,
          cwd: ROOT,
          readyUrl: `${service.url}/healthcheck`,
          readyStatus: (status) => status === 200,
          readyTimeoutMs: 90_000,
        }),
      );
    }
  }

  const runJob = (service: ProcessPlan) =>
    runProcess(join(ROOT, service.script), { args: service.args, env: service.env, cwd: ROOT, timeoutMs: 180_000 });

  async function stopServices(): Promise<void> {
    // Reverse order: the nodes before the log they use.
    for (const service of [...startOrder(plans)].reverse()) {
      await running.get(service.service)?.stop(30_000);
      running.delete(service.service);
    }
  }

  async function logKey(): Promise<unknown> {
    const response = await fetch(
      `${plan('vct-log').url}/.well-known/webfinger?resource=${encodeURIComponent(logAlias())}`,
    );
    expect(response.status).toBe(200);
    return response.json();
  }

  async function getSth(): Promise<Sth> {
    const response = await fetch(`${logAlias()}/v1/get-sth`);
    expect(response.status).toBe(200);
    return (await response.json()) as Sth;
  }

  beforeAll(async () => {
    project = await resolveCompose(COMPOSE_FILE);
    const targets = await readDockerfile(join(ROOT, 'deploy', 'docker', 'Dockerfile'));
    await recreateVhosts();
    mongo = await startFerretDb();
    dir = await makeTempDir('compose-as-processes-');
    const ports: Record<string, number> = {};
    for (const name of Object.keys(project.services)) ports[name] = await freePort();
    const amqp = new URL(AMQP_URL);
    plans = planProcesses(project, targets, {
      ports,
      volumeDir: (source) => join(dir.path, 'volumes', source.replace(/^[./]+/, '').replaceAll('/', '_')),
      mongoUrl: mongo.url,
      amqpHost: `${amqp.hostname}:${amqp.port || 5672}`,
      infrastructure: INFRASTRUCTURE,
    });
    for (const service of plans) for (const volume of service.volumes) await mkdir(volume, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await stopAllProcesses();
    await mongo?.stop();
    await dir?.remove();
  });

  it('names only environment variables the services read', async () => {
    for (const service of plans) {
      const help = await runProcess(join(ROOT, service.script), { args: ['--help'], cwd: ROOT });
      expect(help.code, `${service.service} --help`).toBe(0);
      const known = new Set(
        [...help.stdout.matchAll(/env: ([A-Z0-9_, ]+?)(?:;|$)/gm)].flatMap((m) => m[1]!.split(/,\s*/)),
      );
      // <NAME>_FILE is every service's file form of <NAME> (the config reader's rule).
      const unknown = Object.keys(service.env).filter(
        (name) => name !== 'NODE_ENV' && !known.has(name) && !known.has(name.replace(/_FILE$/, '')),
      );
      expect(unknown, `${service.service}: environment names its --help does not list`).toEqual([]);
    }
  });

  it('starts every service, its one-shot jobs giving keystores and wiring the federation; a second run changes nothing', async () => {
    await startServices();
    const keystores = await runJob(plan('kms-init'));
    expect(keystores.code, keystores.output).toBe(0);
    expect(keystores.stdout).toMatch(/node1: keystore \S+ is in place/);
    const again = await runJob(plan('federation-init'));
    expect(again.code, again.output).toBe(0);
    expect(again.stdout).toContain('already wired');
    expect(again.stdout).toMatch(/vcs profile demo-issuer is in place \(did:node:/);
  });

  it('signs through the kms: every service reports a reachable kms', async () => {
    for (const name of ['vct-log', 'node1', 'node2', 'node3', 'vcs']) {
      const health = (await (await fetch(`${plan(name).url}/healthcheck`)).json()) as { kmsStatus?: string };
      expect(health.kmsStatus, name).toBe('success');
    }
  });

  it('publishes a DID created on node1 on all three nodes', async () => {
    const demo = await createDemoDid(nodeUrls()[0]!);
    did = demo.did;
    const views = await waitUntilPublished(nodeUrls(), did, 120_000);
    expect(views).toHaveLength(3);
    expect(new Set(views.map((view) => view.canonicalId)).size).toBe(1);
  });

  it('issues a credential from the demo profile, whose issuer DID lives on node1, and verifies it', async () => {
    const vcs = plan('vcs').url!;
    const issued = await fetch(`${vcs}/demo-issuer/credentials/issueCredential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        credential: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          id: 'urn:uuid:compose-test-credential',
          type: ['VerifiableCredential'],
          issuanceDate: '2026-11-26T00:00:00Z',
          credentialSubject: { id: 'did:example:holder' },
        },
      }),
    });
    expect(issued.status, await issued.clone().text()).toBe(201);
    const credential = (await issued.json()) as { issuer: unknown; proof: unknown };
    expect(JSON.stringify(credential.issuer)).toContain('did:node:');
    const verified = await fetch(`${vcs}/verifier/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ verifiableCredential: credential, options: { checks: ['proof'] } }),
    });
    expect(verified.status, await verified.clone().text()).toBe(200);
  });

  it('keeps every identity across a restart of every service: the DID resolves, the log extends its tree', async () => {
    const before = await getSth();
    const keyBefore = await logKey();
    expect(before.tree_size).toBeGreaterThan(0);
    await stopServices();
    await startServices();
    await waitUntilPublished(nodeUrls(), did, 60_000);
    const after = await getSth();
    expect(after.tree_size).toBeGreaterThanOrEqual(before.tree_size);
    if (after.tree_size === before.tree_size) {
      expect(after.sha256_root_hash).toBe(before.sha256_root_hash);
    } else {
      const response = await fetch(
        `${logAlias()}/v1/get-sth-consistency?first=${before.tree_size}&second=${after.tree_size}`,
      );
      const { consistency } = (await response.json()) as { consistency: string[] };
      expect(
        verifyConsistency(
          before.tree_size,
          after.tree_size,
          Buffer.from(before.sha256_root_hash, 'base64'),
          Buffer.from(after.sha256_root_hash, 'base64'),
          consistency.map((hash) => Buffer.from(hash, 'base64')),
        ),
      ).toBe(true);
    }
    // The same key signs: a restarted log that made itself a new key would refuse its own tree.
    expect(await logKey()).toEqual(keyBefore);
  });
});
