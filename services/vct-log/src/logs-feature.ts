import { join } from 'node:path';
import type { KmsSettings } from '@anchor/common/clients';
import { getLogger } from '@anchor/common/log';
import type { Feature } from '@anchor/common/service';
import type { StoreProvider } from '@anchor/common/storage';
import type { LogKeyType } from '@anchor/common/vct';
import { LogRegistry } from './api/log-access.js';
import type { VctLogContext } from './log-context.js';
import type { LogDefinition } from './log-definitions.js';
import { LOG_CONFIG_STORE, type SigningKeyRecord } from './merkle-log/log-records.js';
import { TransparencyLog } from './merkle-log/transparency-log.js';
import { loadOrCreateLogKey } from './signing/key-file.js';
import { LogSigner } from './signing/log-signer.js';
import { rollbackProblem, TreeHighWater } from './signing/tree-high-water.js';

const logger = getLogger('vct-log');

const ONE_LOG: readonly LogDefinition[] = [{ alias: 'main', read: true, write: true, issuers: [] }];

/** The signing key (checked against the database's) and one TransparencyLog per alias. */
export interface LogsFeature extends Feature {
  /** The log key, local or in the kms (`signer.setup` is what the entry preparer's workers sign with). */
  readonly signer: LogSigner;
  readonly logs: readonly TransparencyLog[];
  readonly registry: LogRegistry;
  /** The newest head each alias signed, kept outside the database (ADR 0014). */
  readonly highWater: TreeHighWater;
}

export async function createLogsFeature(ctx: VctLogContext): Promise<LogsFeature> {
  const options = ctx.config;
  const definitions = options.logs ?? ONE_LOG;
  const signer = options.kms
    ? await kmsLogSigner(ctx.storage, options.kms, options.keyType, options.caCertificates)
    : await localLogSigner(options);
  try {
    await checkDatabaseKey(ctx.storage, signer);
  } catch (error) {
    signer.close();
    throw error;
  }
  const logs: TransparencyLog[] = [];
  let highWater: TreeHighWater;
  try {
    highWater = await TreeHighWater.open(
      options.treeHighWaterFile ?? join(options.dataDir ?? 'data', 'tree-high-water.json'),
    );
    for (const definition of definitions) {
      const log = await TransparencyLog.open(ctx.storage, definition.alias);
      await refuseRollback(log, highWater, options.allowTreeRollback === true);
      logs.push(log);
    }
  } catch (error) {
    signer.close();
    throw error;
  }
  const registry = new LogRegistry(
    definitions.map((definition, i) => ({ definition, log: logs[i] as TransparencyLog })),
  );
  ctx.http.health.register('kmsStatus', () => signer.health());
  return { name: 'logs', signer, logs, registry, highWater, stop: async () => signer.close() };
}

/**
 * A database restored to an older backup would serve a smaller tree than heads already signed, which every
 * monitor that saw them reports as a rollback: the log refuses to start unless the operator says so.
 */
async function refuseRollback(log: TransparencyLog, highWater: TreeHighWater, allowed: boolean): Promise<void> {
  const mark = highWater.get(log.alias);
  const problem = rollbackProblem(log.alias, mark, log.head());
  if (problem === undefined) return;
  if (!allowed)
    throw new Error(
      `${problem}. Restore a newer backup, or start once with --allow-tree-rollback to serve this tree anyway (monitors that saw the larger head will report a rollback); the mark is kept in ${highWater.file}`,
    );
  logger.warn('serving a tree smaller than a head this log already signed (--allow-tree-rollback)', {
    alias: log.alias,
    problem,
    signedSize: mark?.size,
    servedSize: log.head().size,
  });
  await highWater.reset(log.alias, log.head());
}

async function localLogSigner(options: VctLogContext['config']): Promise<LogSigner> {
  const file = options.keyFile ?? join(options.dataDir ?? 'data', 'vct-log-key.pem');
  return LogSigner.local((await loadOrCreateLogKey(file, options.keyType)).key);
}

/**
 * The log key in the kms (`--kms-url`): `--kms-key-id`, or the key this database's logs were first signed
 * with there, or a new one; replicas sharing the database agree on the first writer's key.
 */
async function kmsLogSigner(
  provider: StoreProvider,
  settings: KmsSettings,
  keyType: LogKeyType | undefined,
  ca: readonly Buffer[] | undefined,
): Promise<LogSigner> {
  const store = await provider.open<{ keyId: string }>(LOG_CONFIG_STORE);
  return LogSigner.kms(settings, {
    keyType,
    ca,
    remembered: async () => (await store.get(KMS_KEY_RECORD))?.keyId,
    remember: async (keyId) => {
      await store.insert(KMS_KEY_RECORD, { keyId });
      return (await store.get(KMS_KEY_RECORD))?.keyId ?? keyId;
    },
  });
}

/**
 * Every log in a database is signed with one key: a replica started with another key (a forgotten shared
 * --key-file) would publish signatures clients cannot verify, so it refuses to start.
 */
const KMS_KEY_RECORD = 'kms-key-id';

async function checkDatabaseKey(provider: StoreProvider, signer: LogSigner): Promise<void> {
  const store = await provider.open<SigningKeyRecord>(LOG_CONFIG_STORE);
  const mine: SigningKeyRecord = { type: signer.algorithm.type, publicKey: signer.publicKeyBytes.toString('base64') };
  if (await store.insert('signing-key', mine)) return;
  const recorded = await store.get('signing-key');
  if (recorded && (recorded.publicKey !== mine.publicKey || recorded.type !== mine.type)) {
    throw new Error(
      `this database's logs are signed with the ${recorded.type} key ${recorded.publicKey}, but this process has the ${mine.type} key ${mine.publicKey}; ` +
        'start it with the same --key-file (or --kms-key-id) as the other replicas',
    );
  }
}
