import { join } from 'node:path';
import type { Feature } from '@anchor/common/service';
import type { StoreProvider } from '@anchor/common/storage';
import { LogRegistry } from './api/log-access.js';
import type { VctLogContext } from './log-context.js';
import type { LogDefinition } from './log-definitions.js';
import { LOG_CONFIG_STORE, type SigningKeyRecord } from './merkle-log/log-records.js';
import { TransparencyLog } from './merkle-log/transparency-log.js';
import { loadOrCreateLogKey } from './signing/key-file.js';
import { LogSigner } from './signing/log-signer.js';

const ONE_LOG: readonly LogDefinition[] = [{ alias: 'main', read: true, write: true, issuers: [] }];

/** The signing key (checked against the database's) and one TransparencyLog per alias. */
export interface LogsFeature extends Feature {
  readonly signer: LogSigner;
  /** The signer's key as PKCS#8 PEM (the entry preparer's workers sign with it). */
  readonly signingKeyPem: string;
  readonly logs: readonly TransparencyLog[];
  readonly registry: LogRegistry;
}

export async function createLogsFeature(ctx: VctLogContext): Promise<LogsFeature> {
  const options = ctx.config;
  const definitions = options.logs ?? ONE_LOG;
  const { key } = await loadOrCreateLogKey(
    options.keyFile ?? join(options.dataDir ?? 'data', 'vct-log-key.pem'),
    options.keyType,
  );
  const signer = new LogSigner(key);
  await checkDatabaseKey(ctx.storage, signer);
  const logs: TransparencyLog[] = [];
  for (const definition of definitions) logs.push(await TransparencyLog.open(ctx.storage, definition.alias));
  const registry = new LogRegistry(
    definitions.map((definition, i) => ({ definition, log: logs[i] as TransparencyLog })),
  );
  ctx.http.health.register('kmsStatus', () => signer.selfTest());
  return { name: 'logs', signer, signingKeyPem: key.privateKeyPem(), logs, registry };
}

/**
 * Every log in a database is signed with one key: a replica started with another key (a forgotten shared
 * --key-file) would publish signatures clients cannot verify, so it refuses to start.
 */
async function checkDatabaseKey(provider: StoreProvider, signer: LogSigner): Promise<void> {
  const store = await provider.open<SigningKeyRecord>(LOG_CONFIG_STORE);
  const mine: SigningKeyRecord = { type: signer.algorithm.type, publicKey: signer.publicKeyBytes.toString('base64') };
  if (await store.insert('signing-key', mine)) return;
  const recorded = await store.get('signing-key');
  if (recorded && (recorded.publicKey !== mine.publicKey || recorded.type !== mine.type)) {
    throw new Error(
      `this database's logs are signed with the ${recorded.type} key ${recorded.publicKey}, but this process has the ${mine.type} key ${mine.publicKey}; ` +
        'start it with the same --key-file as the other replicas',
    );
  }
}
