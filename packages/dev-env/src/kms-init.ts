import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { KmsClient } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { ConfigError, defineConfig, loadConfig, opt, runMain, type ConfigOf } from '@anchor/common/config';
import { unavailable } from '@anchor/common/errors';
import { inClusterApi } from './kubernetes-secrets.js';

/**
 * `kms-init`: the one-shot job that gives each service of a deployed federation its keystore in the kms. For
 * every name it creates a keystore once and writes `<dir>/<name>.keystore` (the keystore id) and
 * `<dir>/<name>.capability` (its capability token, mode 0600) into a directory the services mount; they read
 * them through the `_FILE` form of their env names (`ANCHOR_KMS_KEYSTORE_FILE`, `ANCHOR_KMS_CAPABILITY_FILE`).
 * A name whose files exist is left alone (and its keystore checked), so the job may run on every start.
 */
export const kmsInitSpec = defineConfig({
  program: 'kms-init',
  description: 'Creates one kms keystore per service, once, and writes its id and capability token to files.',
  envPrefix: 'KMS_INIT',
  options: {
    kmsUrl: opt.url({ flag: 'kms-url', protocols: ['http', 'https'], required: true, help: 'Base URL of the kms' }),
    keystores: opt.list({
      flag: 'keystores',
      validateItem: (item) =>
        /^[a-z0-9][a-z0-9-]*(=did:[a-z0-9]+:.+)?$/.test(item) ? undefined : 'each entry is name or name=controller-did',
      help: 'Keystores to create: name or name=controller DID, comma-separated; without a controller, a did:key made for the keystore whose private key is not kept (the capability token is the way in)',
    }),
    output: opt.enum(['files', 'kubernetes-secrets'] as const, {
      flag: 'output',
      default: 'files',
      help: 'Where each keystore id and capability go: files in --dir, or a Kubernetes Secret <secret-prefix><name> (keys keystore, capability) created through the in-cluster API',
    }),
    dir: opt.string({
      flag: 'dir',
      default: '/credentials',
      help: 'Directory the files are written to (--output files)',
    }),
    secretPrefix: opt.string({
      flag: 'secret-prefix',
      default: 'kms-',
      help: 'Name prefix of the Secrets written (--output kubernetes-secrets)',
    }),
    token: opt.string({
      flag: 'token',
      secret: true,
      help: "The kms's write token for POST /v1/keystores, when it has one",
    }),
    waitTimeout: opt.duration({ flag: 'wait-timeout', default: '5m', help: 'How long to wait for the kms to answer' }),
  },
});

export type KmsInitConfig = ConfigOf<typeof kmsInitSpec>;

async function writeSecretFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(`${content}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

interface KeystoreAccess {
  keystore: string;
  capability: string;
}

/** Where kms-init keeps what it created: read back on the next run, so each keystore is created once. */
interface CredentialStore {
  read(name: string): Promise<KeystoreAccess | undefined>;
  write(name: string, access: KeystoreAccess): Promise<void>;
  where(name: string): string;
}

async function fileStore(dir: string): Promise<CredentialStore> {
  await mkdir(dir, { recursive: true });
  const files = (name: string) => ({ id: join(dir, `${name}.keystore`), capability: join(dir, `${name}.capability`) });
  return {
    async read(name) {
      const { id, capability } = files(name);
      if (!existsSync(id) || !existsSync(capability)) return undefined;
      return { keystore: (await readFile(id, 'utf8')).trim(), capability: (await readFile(capability, 'utf8')).trim() };
    },
    async write(name, access) {
      const { id, capability } = files(name);
      // The capability first: a keystore file without its capability would name a keystore nobody can open.
      await writeSecretFile(capability, access.capability);
      await writeSecretFile(id, access.keystore);
    },
    where: (name) => files(name).id,
  };
}

function kubernetesStore(prefix: string): CredentialStore {
  const api = inClusterApi();
  return {
    async read(name) {
      const data = await api.getSecret(`${prefix}${name}`);
      if (data === undefined) return undefined;
      if (!data['keystore'] || !data['capability'])
        throw unavailable(`secret ${prefix}${name} exists without keystore and capability`);
      return { keystore: data['keystore'], capability: data['capability'] };
    },
    write: (name, access) =>
      api.createSecret(`${prefix}${name}`, { ...access }, { 'app.kubernetes.io/managed-by': 'kms-init' }),
    where: (name) => `secret ${api.namespace}/${prefix}${name}`,
  };
}

export async function initKeystores(config: KmsInitConfig, say: (line: string) => void): Promise<void> {
  const kms = new KmsClient({ url: config.kmsUrl, ...(config.token === undefined ? {} : { token: config.token }) });
  try {
    const deadline = Date.now() + config.waitTimeout;
    for (;;) {
      const healthy = await kms.health().then(
        (health) => health.healthy,
        () => false,
      );
      if (healthy) break;
      if (Date.now() > deadline)
        throw unavailable(`the kms at ${config.kmsUrl} is not healthy after ${config.waitTimeout} ms`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const store = config.output === 'files' ? await fileStore(config.dir) : kubernetesStore(config.secretPrefix);
    for (const entry of config.keystores) {
      const [name, controllerGiven] = entry.split('=') as [string, string | undefined];
      const existing = await store.read(name);
      if (existing !== undefined) {
        await kms.keystore(existing.keystore, { capability: existing.capability }).info();
        say(`${name}: keystore ${existing.keystore} is in place`);
        continue;
      }
      // The kms resolves a controller when it creates the keystore: a fresh did:key resolves offline.
      const controller = controllerGiven ?? didKeyFromKeyPair(KeyPair.generate('Ed25519'));
      const created = await kms.createKeystore({ controller });
      if (created.capability === undefined)
        throw unavailable(`the kms created keystore ${created.id} without a capability`);
      await store.write(name, { keystore: created.id, capability: created.capability });
      say(`${name}: created keystore ${created.id} (${store.where(name)})`);
    }
  } finally {
    kms.close();
  }
}

export async function runKmsInit(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  await runMain(
    async () => {
      const config = loadConfig(kmsInitSpec, { argv: [...argv] });
      if (config.keystores.length === 0) throw new ConfigError('--keystores must name at least one keystore');
      await initKeystores(config, (line) => void process.stdout.write(`kms-init | ${line}\n`));
    },
    { program: kmsInitSpec.program },
  );
}
