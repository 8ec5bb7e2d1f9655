/**
 * The Kubernetes manifests: every base (deploy/k8s/<service>) and overlay (deploy/k8s/overlays/<name>) renders
 * with kustomize, each rendered object validates against the Kubernetes OpenAPI schema of its kind
 * (kubeconform, strict: a misspelt field fails; scripts/ensure-kubeconform.sh), and the workloads follow the house rules: health probes on /healthcheck, resource
 * requests and a memory limit, a non-root security context, a versioned image that is not `latest`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const run = promisify(execFile);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [member: string]: unknown;
}

interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  readinessProbe?: { httpGet?: { path?: string } };
  livenessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean };
}

interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
  initContainers?: Container[];
}

const kustomizations = [
  ...readdirSync(K8S)
    .filter((name) => name !== 'overlays')
    .map((name) => join(K8S, name)),
  ...readdirSync(join(K8S, 'overlays')).map((name) => join(K8S, 'overlays', name)),
].filter((dir) => existsSync(join(dir, 'kustomization.yaml')));

/** The last line a tool script prints: the command to run, split into words. */
async function toolCommand(script: string): Promise<string[]> {
  const { stdout } = await run('bash', [join(ROOT, 'scripts', script)], { timeout: 20 * 60_000 });
  return stdout.trim().split('\n').pop()!.split(' ');
}

async function renderText(dir: string): Promise<string> {
  const [command, ...args] = await toolCommand('ensure-deploy-tools.sh');
  const { stdout } = await run(command!, [...args, dir], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function render(dir: string): Promise<K8sObject[]> {
  return parseAllDocuments(await renderText(dir)).map((document) => document.toJSON() as K8sObject);
}

/** kubeconform's answer for rendered YAML: its summary line, or every line it printed when something is invalid. */
async function kubeconform(yaml: string): Promise<string> {
  const [command, ...args] = await toolCommand('ensure-kubeconform.sh');
  const scratch = await mkdtemp(join(tmpdir(), 'anchor-kubeconform-'));
  try {
    const file = join(scratch, 'rendered.yaml');
    await writeFile(file, yaml);
    const { stdout } = await run(command!, [...args, file], { timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string; message: string }) => ({
        stdout: `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message,
      }),
    );
    return stdout.trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function podSpecOf(object: K8sObject): PodSpec | undefined {
  const spec = object.spec as {
    template?: { spec?: PodSpec };
    jobTemplate?: { spec?: { template?: { spec?: PodSpec } } };
  };
  return spec?.template?.spec ?? spec?.jobTemplate?.spec?.template?.spec;
}

/** Env names a binary reads, from its --help (with the config reader's <NAME>_FILE form). */
async function envNamesOf(script: string): Promise<Set<string>> {
  const { stdout } = await run(process.execPath, [join(ROOT, script), '--help'], { timeout: 30_000 });
  return new Set([...stdout.matchAll(/env: ([A-Z0-9_, ]+?)(?:;|$)/gm)].flatMap((m) => m[1]!.split(/,\s*/)));
}

const SCRIPTS: Record<string, string> = {
  'anchor-node': 'services/node/dist/main.js',
  'vct-log': 'services/vct-log/dist/main.js',
  kms: 'services/kms/dist/main.js',
  vcs: 'services/vcs/dist/main.js',
  'kms-init': 'packages/dev-env/dist/kms-init-main.js',
  'federation-init': 'packages/dev-env/dist/federation-init-main.js',
};

function knows(names: Set<string>, name: string): boolean {
  return name === 'NODE_ENV' || names.has(name) || names.has(name.replace(/_FILE$/, ''));
}

describe('Kubernetes manifests', () => {
  it('configure each service only with environment variables it reads', async () => {
    const objects = await render(join(K8S, 'overlays', 'local-federation'));
    for (const object of objects) {
      if (object.kind === 'ConfigMap') {
        const service = Object.keys(SCRIPTS).find((name) => object.metadata.name.startsWith(`${name}-`));
        if (!service) continue;
        const names = await envNamesOf(SCRIPTS[service]!);
        const unknown = Object.keys((object['data'] as Record<string, string>) ?? {}).filter(
          (name) => !knows(names, name),
        );
        expect(unknown, `ConfigMap ${object.metadata.name}`).toEqual([]);
      }
      if (object.kind === 'Job') {
        const pod = podSpecOf(object)!;
        const names = await envNamesOf(SCRIPTS[object.metadata.name]!);
        const env = (pod.containers[0] as unknown as { env: Array<{ name: string }> }).env.map((entry) => entry.name);
        expect(
          env.filter((name) => !knows(names, name)),
          `Job ${object.metadata.name}`,
        ).toEqual([]);
      }
    }
  });

  it('mount into each service the kms Secret that kms-init writes for it', async () => {
    const objects = await render(join(K8S, 'overlays', 'local-federation'));
    const job = objects.find((object) => object.kind === 'Job' && object.metadata.name === 'kms-init')!;
    const env = (podSpecOf(job)!.containers[0] as unknown as { env: Array<{ name: string; value: string }> }).env;
    const written = env
      .find((entry) => entry.name === 'KMS_INIT_KEYSTORES')!
      .value.split(',')
      .map((name) => `kms-${name}`);
    const mounted = objects.flatMap((object) =>
      (
        (podSpecOf(object) as unknown as { volumes?: Array<{ name: string; secret?: { secretName: string } }> })
          ?.volumes ?? []
      )
        .filter((volume) => volume.name === 'kms-credentials')
        .map((volume) => volume.secret!.secretName),
    );
    expect(mounted.sort()).toEqual(written.sort());
  });

  it('kubeconform refuses what the API server would: a misspelt field, a port that is not a number', async () => {
    const yaml = await renderText(join(K8S, 'node'));
    expect(await kubeconform(yaml.replace('readinessProbe:', 'readinesProbe:'))).toMatch(
      /Deployment anchor-node is invalid: .*\n.*Invalid: 1,/s,
    );
    expect(await kubeconform(yaml.replace(/containerPort: \d+/, 'containerPort: eighty'))).toMatch(/Invalid: 1,/);
  });

  it('production: https identities behind a TLS Ingress, no dev mode, required Secrets the runbook lists, replicas', async () => {
    const objects = await render(join(K8S, 'overlays', 'production'));
    const configs = objects.filter((object) => object.kind === 'ConfigMap');
    const settings = Object.assign({}, ...configs.map((config) => config['data'] as Record<string, string>)) as Record<
      string,
      string
    >;
    expect(Object.keys(settings).filter((name) => name.endsWith('DEV_MODE'))).toEqual([]);
    const identities = configs.flatMap((config) =>
      Object.entries(config['data'] as Record<string, string>)
        .filter(([name]) => ['ANCHOR_EXTERNAL_ENDPOINT', 'VCT_BASE_URL', 'VC_REST_HOST_URL_EXTERNAL'].includes(name))
        .map(([, url]) => url),
    );
    expect(identities).toHaveLength(4);
    for (const url of identities) expect(url).toMatch(/^https:\/\//);

    const ingress = objects.find((object) => object.kind === 'Ingress')!;
    expect(ingress.metadata).toMatchObject({ annotations: { 'cert-manager.io/cluster-issuer': expect.any(String) } });
    const spec = ingress.spec as { tls: Array<{ hosts: string[] }>; rules: Array<{ host: string }> };
    const hosts = identities.map((url) => new URL(url).host);
    expect(spec.rules.map((rule) => rule.host).sort()).toEqual([...hosts].sort());
    expect(spec.tls.flatMap((tls) => tls.hosts).sort()).toEqual([...hosts].sort());

    const runbook = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const referenced = new Set<string>();
    for (const object of objects) {
      const pod = podSpecOf(object) as
        | (PodSpec & {
            volumes?: Array<{ secret?: { secretName: string; optional?: boolean } }>;
            containers: Array<Container & { envFrom?: Array<{ secretRef?: { name: string; optional?: boolean } }> }>;
          })
        | undefined;
      if (!pod) continue;
      for (const volume of pod.volumes ?? [])
        if (volume.secret) {
          expect(volume.secret.optional, volume.secret.secretName).not.toBe(true);
          referenced.add(volume.secret.secretName);
        }
      for (const container of pod.containers)
        for (const from of container.envFrom ?? [])
          if (from.secretRef) {
            expect(from.secretRef.optional, from.secretRef.name).toBe(false);
            referenced.add(from.secretRef.name);
          }
      for (const match of JSON.stringify(pod).matchAll(/"secretKeyRef":\{"name":"([^"]+)"/g)) referenced.add(match[1]!);
    }
    // kms-<service> is written by the kms-init Job; every other Secret is the operator's, listed in the runbook.
    const operators = [...referenced].filter((name) => !/^kms-(node\d|vct-log|vcs)$/.test(name));
    expect(operators.length).toBeGreaterThan(5);
    for (const name of operators) expect(runbook, name).toContain(`\`${name}\``);
    for (const object of objects.filter((object) => object.kind === 'Deployment'))
      expect((object.spec as { replicas: number }).replicas, object.metadata.name).toBeGreaterThan(1);
    expect(objects.filter((object) => object.kind === 'PodDisruptionBudget').length).toBe(5);
    expect(
      objects
        .filter((object) => object.kind === 'Job')
        .map((job) => job.metadata.name)
        .sort(),
    ).toEqual(['federation-init', 'kms-init']);
  });

  it('has a base for every service', () => {
    const bases = kustomizations.filter((dir) => !dir.includes('/overlays/')).map((dir) => relative(K8S, dir));
    expect(bases.sort()).toEqual(['kms', 'node', 'vcs', 'vct-log']);
  });

  for (const dir of kustomizations) {
    const name = relative(K8S, dir);
    it(`${name}: renders, and every object validates against its Kubernetes schema (kubeconform)`, async () => {
      const yaml = await renderText(dir);
      const objects = parseAllDocuments(yaml).map((document) => document.toJSON() as K8sObject);
      expect(objects.length).toBeGreaterThan(0);
      expect(await kubeconform(yaml)).toMatch(
        new RegExp(
          `^Summary: ${objects.length} resources? found in 1 file - Valid: ${objects.length}, Invalid: 0, Errors: 0, Skipped: 0$`,
        ),
      );
    });

    it(`${name}: workloads have probes, resources, a non-root context and a pinned image`, async () => {
      for (const object of await render(dir)) {
        const pod = podSpecOf(object);
        if (!pod) continue;
        const where = `${object.kind}/${object.metadata.name}`;
        expect(pod.securityContext?.runAsNonRoot, `${where}: runAsNonRoot`).toBe(true);
        for (const container of pod.containers) {
          expect(container.image, `${where}: image tag`).toMatch(/:[\w.-]+$/);
          expect(container.image, `${where}: image tag`).not.toMatch(/:latest$/);
          expect(container.imagePullPolicy, `${where}: pull policy`).toBeDefined();
          expect(container.resources?.requests?.['cpu'], `${where}: cpu request`).toBeDefined();
          expect(container.resources?.requests?.['memory'], `${where}: memory request`).toBeDefined();
          expect(container.resources?.limits?.['memory'], `${where}: memory limit`).toBeDefined();
          expect(container.securityContext?.allowPrivilegeEscalation, `${where}: privilege escalation`).toBe(false);
          if (
            object.kind !== 'Job' &&
            object.kind !== 'CronJob' &&
            object.metadata.labels?.['app.kubernetes.io/part-of'] === 'anchor-network'
          ) {
            expect(container.readinessProbe?.httpGet?.path, `${where}: readiness probe`).toBe('/healthcheck');
            expect(container.livenessProbe, `${where}: liveness probe`).toBeDefined();
          }
        }
      }
    });
  }
});
