import { NodeAdminClient, VcsClient } from '@anchor/common/clients';
import { ConfigError, defineConfig, loadConfig, opt, runMain, type ConfigOf } from '@anchor/common/config';
import { unavailable } from '@anchor/common/errors';
import { wireFederation } from './federation-wiring.js';

/**
 * `federation-init`: the one-shot job of a deployed federation (the compose file's `federation-init`
 * service, the Kubernetes overlay's init Job). It waits until every node answers, then wires them exactly as
 * the local federation does: accept lists, the log, Follow and Invite both ways. Running it again changes
 * nothing that is in place, so it may run on every `docker compose up`.
 */
export const federationInitSpec = defineConfig({
  program: 'federation-init',
  description:
    'Wires running nodes into a federation (accept lists, log, follows, witness invitations), idempotently, then exits 0.',
  envPrefix: 'FEDERATION',
  options: {
    nodes: opt.list({
      flag: 'nodes',
      validateItem: (item) => (/^https?:\/\/[^/]+/.test(item) ? undefined : 'each node must be an http(s) base URL'),
      help: 'Base URLs (external endpoints) of the nodes to wire, comma-separated (at least two)',
    }),
    logUrl: opt.url({
      flag: 'log-url',
      protocols: ['http', 'https'],
      required: true,
      help: 'The log alias URL every node uses (e.g. http://vct-log:5678/main)',
    }),
    adminToken: opt.string({
      flag: 'admin-token',
      secret: true,
      help: "Bearer token for the nodes' admin endpoints, when their token rules protect them",
    }),
    witnessPolicy: opt.string({
      flag: 'witness-policy',
      help: 'Witness policy set on every node; default: each node keeps its own',
    }),
    waitTimeout: opt.duration({
      flag: 'wait-timeout',
      default: '5m',
      help: 'How long to wait for every node to answer its health check before giving up (exit 1)',
    }),
    vcsUrl: opt.url({
      flag: 'vcs-url',
      protocols: ['http', 'https'],
      help: 'The credential service: with --demo-profile, the profile is created there once',
    }),
    demoProfile: opt.string({
      flag: 'demo-profile',
      help: 'Name of an issuer profile to create on the vcs (its DID is created by the vcs on its node)',
    }),
    vcsToken: opt.string({ flag: 'vcs-token', secret: true, help: "The vcs's write token, when it has one" }),
    acceptTimeout: opt.duration({
      flag: 'accept-timeout',
      default: '60s',
      help: 'How long Accepts of the Follows and Invites may take',
    }),
  },
});

export type FederationInitConfig = ConfigOf<typeof federationInitSpec>;

const HEALTH_POLL_MS = 1_000;

/** Waits for the nodes, then wires them; says each change made. Rejects when a node never becomes healthy. */
export async function initFederation(config: FederationInitConfig, say: (line: string) => void): Promise<void> {
  const nodes = config.nodes.map(
    (url) =>
      new NodeAdminClient({ url, ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }) }),
  );
  const deadline = Date.now() + config.waitTimeout;
  for (const node of nodes) {
    for (;;) {
      // A node that does not answer yet (its container still starting) rejects: keep waiting.
      const problem = await node.health().then(
        (health) => (health.healthy ? undefined : (health.problem ?? `status ${health.status}`)),
        (error: unknown) => (error as Error).message,
      );
      if (problem === undefined) break;
      if (Date.now() > deadline)
        throw unavailable(`${node.url} is not healthy after ${config.waitTimeout} ms: ${problem}`);
      await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
    }
    say(`${node.url} is healthy`);
  }
  let changes = 0;
  await wireFederation(nodes, {
    logUrl: config.logUrl,
    acceptTimeoutMs: config.acceptTimeout,
    ...(config.witnessPolicy === undefined ? {} : { witnessPolicy: config.witnessPolicy }),
    onChange: (change) => {
      changes += 1;
      say(change);
    },
  });
  say(changes === 0 ? 'the federation was already wired' : `the federation is wired (${changes} changes)`);
  if (config.vcsUrl !== undefined && config.demoProfile !== undefined) await ensureDemoProfile(config, say);
}

/** Creates the demo issuer profile on the vcs unless it exists (a DID on the vcs's node, keys in its kms). */
async function ensureDemoProfile(config: FederationInitConfig, say: (line: string) => void): Promise<void> {
  await ensureIssuerProfile(
    { url: config.vcsUrl!, ...(config.vcsToken === undefined ? {} : { token: config.vcsToken }) },
    config.demoProfile!,
    config.waitTimeout,
    say,
  );
}

/**
 * Waits for the vcs, then creates the issuer profile `name` unless it exists: its DID is created by the vcs
 * (did:node on its node when it has one, with keys in its kms). Safe to run on every start.
 */
export async function ensureIssuerProfile(
  vcs: { url: string; token?: string },
  name: string,
  waitTimeoutMs: number,
  say: (line: string) => void,
): Promise<void> {
  const client = new VcsClient({
    url: vcs.url,
    timeoutMs: 120_000,
    ...(vcs.token === undefined ? {} : { token: vcs.token }),
  });
  try {
    const deadline = Date.now() + waitTimeoutMs;
    for (;;) {
      const healthy = await client.healthy();
      if (healthy) break;
      if (Date.now() > deadline) throw unavailable(`the vcs at ${vcs.url} is not healthy after ${waitTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
    }
    const existing = await client.profile(name);
    if (existing !== undefined) {
      say(`vcs profile ${name} is in place (${existing.did ?? 'no DID'})`);
      return;
    }
    const created = await client.createProfile({
      name,
      uri: `https://example.com/${name}`,
      signatureType: 'Ed25519Signature2020',
    });
    say(`vcs profile ${name} created, issuer ${created.did ?? '(no DID)'}`);
  } finally {
    client.close();
  }
}

export async function runFederationInit(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  await runMain(
    async () => {
      const config = loadConfig(federationInitSpec, { argv: [...argv] });
      if (config.nodes.length < 2) throw new ConfigError('--nodes must name at least two nodes to wire');
      await initFederation(config, (line) => void process.stdout.write(`federation-init | ${line}\n`));
    },
    { program: federationInitSpec.program },
  );
}
