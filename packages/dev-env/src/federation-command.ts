import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, defineConfig, loadConfig, opt, runMain, type MainIo } from '@anchor/common/config';
import { unavailable } from '@anchor/common/errors';
import { createDemoDid, resolutionUrl, waitUntilPublished } from './demo-did.js';
import { readRecordedLayout } from './federation-layout.js';
import { startLocalFederation, type LocalFederation } from './local-federation.js';

const dataDirOption = () =>
  opt.string({
    flag: 'data-dir',
    env: 'FEDERATION_DATA_DIR',
    default: './data/federation',
    help: 'Where every service keeps its data (<data-dir>/<service>), kept across restarts; delete it to start afresh',
  });

export const federationConfigSpec = defineConfig({
  program: 'start-federation',
  description:
    'A local federation on loopback: a kms, a vct-log and did:node nodes that follow and witness each other and sign through the kms, on embedded defaults (no MongoDB, no RabbitMQ).',
  options: {
    nodes: opt.int({
      flag: 'nodes',
      env: 'FEDERATION_NODES',
      default: 2,
      min: 1,
      max: 9,
      help: 'How many nodes to run',
    }),
    logPort: opt.int({
      flag: 'log-port',
      env: 'FEDERATION_LOG_PORT',
      default: 8070,
      min: 1,
      max: 65535,
      help: 'Port of the vct-log (its log alias is /main)',
    }),
    firstNodePort: opt.int({
      flag: 'first-node-port',
      env: 'FEDERATION_FIRST_NODE_PORT',
      default: 8081,
      min: 1,
      max: 65535,
      help: 'Port of node1; node N listens on this + N - 1',
    }),
    kms: opt.bool({
      flag: 'kms',
      env: 'FEDERATION_KMS',
      default: true,
      help: 'Run a kms through which the log and every node sign (their keys live in it); --kms=false signs with local keys. A data directory keeps its choice',
    }),
    kmsPort: opt.int({
      flag: 'kms-port',
      env: 'FEDERATION_KMS_PORT',
      default: 8075,
      min: 1,
      max: 65535,
      help: 'Port of the kms',
    }),
    vcs: opt.bool({
      flag: 'vcs',
      env: 'FEDERATION_VCS',
      default: true,
      help: 'Run a vcs (credential service) with a demo-issuer profile whose DID is created on node1; --vcs=false runs without',
    }),
    vcsPort: opt.int({
      flag: 'vcs-port',
      env: 'FEDERATION_VCS_PORT',
      default: 8072,
      min: 1,
      max: 65535,
      help: 'Port of the vcs',
    }),
    dataDir: dataDirOption(),
    witnessPolicy: opt.string({
      flag: 'witness-policy',
      env: 'FEDERATION_WITNESS_POLICY',
      help: 'Witness policy set on every node, e.g. "MinPercent(100,batch) AND MinPercent(50,system)"; default: each node keeps its own (100% batch and system)',
    }),
    logLevel: opt.string({
      flag: 'log-level',
      env: 'FEDERATION_LOG_LEVEL',
      default: 'info',
      help: 'Log level spec passed to every service (module=level:...:default)',
    }),
    logFormat: opt.enum(['text', 'json'] as const, {
      flag: 'log-format',
      env: ['FEDERATION_LOG_FORMAT', 'LOG_FORMAT'],
      default: 'text',
      help: 'Line format of every service: text (for a terminal) or json (what production collects)',
    }),
    demo: opt.bool({
      flag: 'demo',
      env: 'FEDERATION_DEMO',
      help: 'Once the federation is up, create one DID on node1 and show it published on every node',
    }),
  },
});

export const demoConfigSpec = defineConfig({
  program: 'demo-did',
  description:
    'Creates one DID on node1 of the running local federation and waits until every node resolves it published.',
  options: { dataDir: dataDirOption() },
});

const print = (line: string): void => void process.stdout.write(`${line}\n`);

/** `npm start`: runs the local federation until Ctrl-C / SIGTERM, printing each service's output with its name. */
export async function runFederationCommand(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  await runMain(
    async () => {
      const config = loadConfig(federationConfigSpec, { argv: [...argv] });
      const federation = await startLocalFederation({
        dataDir: config.dataDir,
        nodes: config.nodes,
        logPort: config.logPort,
        firstNodePort: config.firstNodePort,
        ...(config.kms ? { kmsPort: config.kmsPort } : {}),
        ...(config.vcs ? { vcsPort: config.vcsPort } : {}),
        logLevel: config.logLevel,
        logFormat: config.logFormat,
        ...(config.witnessPolicy === undefined ? {} : { witnessPolicy: config.witnessPolicy }),
        onOutput: (service, line) => print(`${service.padEnd(7)} | ${line}`),
        onProgress: (message) => print(`federation | ${message}`),
      });
      printTour(federation);

      let stopping = false;
      let crashed: string | undefined;
      void federation.exited.then(({ service, code, signal }) => {
        if (stopping) return;
        // A dead member leaves a federation that no longer anchors: stop the rest and fail, through runMain.
        crashed = `${service} exited unexpectedly (${signal ?? `code ${code}`})`;
        print(`federation | ${crashed}; stopping the others`);
        process.kill(process.pid, 'SIGTERM');
      });
      if (config.demo) await runDemo(federation);
      return {
        async stop() {
          stopping = true;
          print(
            `federation | stopping ${federation.layout.vcs ? 'the vcs, ' : ''}the nodes, then the log${federation.layout.kms ? ', then the kms' : ''}`,
          );
          await federation.stop();
          print(`federation | stopped; data kept in ${federation.layout.dataDir}`);
          if (crashed !== undefined) throw unavailable(crashed);
        },
      };
    },
    { program: federationConfigSpec.program, io: onceWithinASecond },
  );
}

function printTour(federation: LocalFederation): void {
  const { log, nodes, dataDir, kms, vcs } = federation.layout;
  const first = nodes[0]?.url ?? '';
  print('');
  print('The local federation is up:');
  if (kms) print(`  kms      ${kms.url}   (every signature below is made here)`);
  print(`  vct-log  ${log.url}   (log ${log.logUrl})`);
  for (const node of nodes) print(`  ${node.name.padEnd(7)}  ${node.url}   (service ${node.url}/services/node)`);
  if (vcs) print(`  vcs      ${vcs.url}   (issuer profile demo-issuer, its DID on ${nodes[0]?.name ?? 'node1'})`);
  print(`  data     ${dataDir}   (delete it to start afresh)`);
  print(`  explorer ${first}/explorer/   (every node serves it; open it in a browser)`);
  print('');
  print('Try it:');
  print('  npm run demo          # creates a DID on node1 and waits until every node resolves it published');
  print(`  curl -s ${first}/services/node/following`);
  print(`  curl -s ${first}/sidetree/v1/identifiers/<did>`);
  print(`  curl -s ${log.logUrl}/v1/get-sth`);
  if (vcs)
    print(
      `  npx anchor vc issue vc.json --profile demo-issuer --vcs-url ${vcs.url}   # vc.json: an unsigned credential`,
    );
  print('Ctrl-C stops everything.');
  print('');
}

async function runDemo(federation: LocalFederation): Promise<void> {
  const urls = federation.layout.nodes.map((node) => node.url);
  await reportDemo(urls, federation.layout.dataDir, (line) => print(`demo       | ${line}`));
}

/** `npm run demo`: the demo against the federation `npm start` is running (found through its data directory). */
export async function runDemoCommand(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  await runMain(
    async () => {
      const config = loadConfig(demoConfigSpec, { argv: [...argv] });
      const recorded = await readRecordedLayout(config.dataDir);
      if (recorded === undefined)
        throw new ConfigError(
          `no local federation has been started with data in ${config.dataDir}: run npm start first`,
        );
      const urls = recorded.lastStarted
        .map((name) => recorded.nodes[name])
        .filter((url): url is string => url !== undefined);
      await reportDemo(urls, config.dataDir, print);
    },
    { program: demoConfigSpec.program },
  );
}

/**
 * Creates one DID on the first node and follows it until every node resolves it published: the path an
 * anchor takes through the federation (batch, witnesses, log, Create to followers, observers). The request
 * is saved as `<dataDir>/demo/create.json`, so the walkthrough can be replayed with curl.
 */
export async function reportDemo(
  nodeUrls: readonly string[],
  dataDir: string,
  say: (line: string) => void,
): Promise<void> {
  const [first] = nodeUrls;
  if (first === undefined) throw new ConfigError('no node to create a DID on');
  const demo = await createDemoDid(first);
  const saved = join(dataDir, 'demo', 'create.json');
  await mkdir(join(dataDir, 'demo'), { recursive: true });
  await writeFile(saved, demo.body);
  say(`created ${demo.did} on ${first} (request saved as ${saved})`);
  for (const url of nodeUrls) say(`  curl -s ${resolutionUrl(url, demo.did)}`);
  say('waiting until every node resolves it published (batched, witnessed, logged, delivered) ...');
  const started = Date.now();
  for (const view of await waitUntilPublished(nodeUrls, demo.did))
    say(`  ${view.node}: published as ${view.canonicalId}`);
  say(`published on all ${nodeUrls.length} nodes after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The process surface runMain uses, except that a repeat of a signal within a second is dropped: a
 * Ctrl-C can reach this process twice (from the terminal and forwarded by npm), and runMain takes a
 * second signal as "exit now", which would cut the services' graceful stop short.
 */
const onceWithinASecond: MainIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  exit: (code) => process.exit(code),
  onSignal: (signal, handler) => {
    let last = 0;
    process.on(signal, () => {
      const now = Date.now();
      if (now - last < 1_000) return;
      last = now;
      handler();
    });
  },
};
