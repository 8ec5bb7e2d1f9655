import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostPort } from '@anchor/common/config';
import type { FetchLike } from '@anchor/common/did';
import { createHttpApp, mountRoutes, startHttpServer, type HttpApp, type RunningHttpServer, type TokenRule } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import { createMetrics, type Metrics } from '@anchor/common/metrics';
import type { StoreProvider } from '@anchor/common/storage';
import type { LogKeyType } from '@anchor/common/vct';
import { PROJECT_VERSION } from '@anchor/common/version';
import { LogRegistry } from './api/log-access.js';
import { LogApi } from './api/log-api.js';
import { logApiHandlers } from './api/log-api-handlers.js';
import { webFingerHandler } from './api/webfinger.js';
import { createEntryPreparer, workerCount, type EntryPreparer } from './credentials/entry-preparer.js';
import { CredentialChecker } from './credentials/credential-checker.js';
import type { UndefinedTermsPolicy } from './credentials/entry-preparation.js';
import { didVerificationMethodResolver } from './credentials/did-verification-methods.js';
import type { LogDefinition } from './log-definitions.js';
import { LOG_CONFIG_STORE, type SigningKeyRecord } from './merkle-log/log-records.js';
import { Sequencer } from './merkle-log/sequencer.js';
import { SequencerLease } from './merkle-log/sequencer-lease.js';
import { TransparencyLog } from './merkle-log/transparency-log.js';
import { VctMetrics } from './metrics.js';
import { loadOrCreateLogKey } from './signing/key-file.js';
import { LogSigner } from './signing/log-signer.js';
import { SignedTreeHeads } from './signing/signed-tree-heads.js';
import { vctLogRoutes } from './routes.js';
import { openStorage, type StorageOptions } from './storage.js';

const log = getLogger('vct-server');

/** Everything `createServer` takes; every field has a default, so tests give only what they care about. */
export interface VctLogOptions {
  /** Listen address. Default 127.0.0.1 (main.ts defaults to all interfaces). */
  host?: string;
  /** Default 0: a free port (see `url`). */
  port?: number;
  /** External URL for WebFinger; default http://<host>:<port> (a wildcard host shown as localhost). */
  baseUrl?: string | undefined;
  /** LMDB database and default key file location. Default `data`. */
  dataDir?: string;
  /** Default one readable and writable log, `main`. */
  logs?: LogDefinition[];
  storage?: StorageOptions;
  /** Default `<dataDir>/vct-log-key.pem`. */
  keyFile?: string | undefined;
  /** Type of a generated key (default Ed25519); an existing key must match when given. */
  keyType?: LogKeyType | undefined;
  readTokens?: readonly string[];
  writeTokens?: readonly string[];
  integrationIntervalMs?: number;
  integrationBatchSize?: number;
  maxRootAgeMs?: number;
  maxGetEntries?: number;
  /** Lease duration when several replicas share a database. */
  sequencerLeaseMs?: number;
  /** Integrate only while holding the sequencer lease. Default: with mongodb. */
  useSequencerLease?: boolean;
  devMode?: boolean;
  allowUndefinedTerms?: UndefinedTermsPolicy;
  canonicalizeWorkers?: number | 'auto';
  didCacheTtlMs?: number;
  requestBodyLimit?: string;
  /** Serve /metrics on a separate listener instead of the API listener. */
  metricsHost?: HostPort | undefined;
  tls?: { certFile: string; keyFile: string } | undefined;
  /** Replaces `fetch` for did:web documents (tests). */
  didWebFetch?: FetchLike;
}

export interface VctLogServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The API's URL once started (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The separate metrics listener's URL, when `metricsHost` is set. */
  readonly metricsUrl: string | undefined;
  /** The external base URL (WebFinger subjects are `<baseUrl>/<alias>`). */
  readonly baseUrl: string;
  /** base64 of the log id, SHA-256 of the public key. */
  readonly logId: string;
  readonly publicKey: Buffer;
  /** Runs one integration round now instead of waiting for the interval (tests, tools). */
  integrateNow(): Promise<void>;
  /** The HTTP kit once started: its route table (`routeTableOf`) and what express routes, for tests and tools. */
  readonly http: HttpApp;
}

const DEFAULT_UNDEFINED_TERMS: readonly string[] = ['href', 'rel', 'AnchorLink'];

/**
 * The transparency log service: storage, the signing key, one TransparencyLog per alias, the credential
 * checker with its canonicalisation workers, the HTTP API, and the sequencer that integrates accepted
 * entries every interval. `start()` brings them up in that order, `stop()` takes them down in reverse,
 * letting in-flight requests and the integration round in progress finish.
 */
export function createServer(options: VctLogOptions = {}): VctLogServer {
  const dataDir = options.dataDir ?? 'data';
  const host = options.host ?? '127.0.0.1';
  const definitions = options.logs ?? [{ alias: 'main', read: true, write: true, issuers: [] }];
  const storage: StorageOptions = options.storage ?? { type: 'lmdb' };
  const metrics: Metrics = createMetrics({ prefix: 'vct_' });
  const vctMetrics = new VctMetrics(metrics);

  let provider: StoreProvider | undefined;
  let preparer: EntryPreparer | undefined;
  let sequencer: Sequencer | undefined;
  let api: RunningHttpServer | undefined;
  let httpApp: HttpApp | undefined;
  let metricsServer: RunningHttpServer | undefined;
  let signer: LogSigner | undefined;
  let baseUrl: string | undefined = options.baseUrl?.replace(/\/+$/, '');
  let started = false;

  const ensure = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`vct-log is not started (no ${what} yet)`);
    return value;
  };

  async function start(): Promise<void> {
    if (started) throw new Error('vct-log is already started');
    started = true;
    try {
      provider = await openStorage(storage, dataDir);
      const { key } = await loadOrCreateLogKey(options.keyFile ?? join(dataDir, 'vct-log-key.pem'), options.keyType);
      signer = new LogSigner(key);
      await checkDatabaseKey(provider, signer);

      const logs: TransparencyLog[] = [];
      for (const definition of definitions) logs.push(await TransparencyLog.open(provider, definition.alias));
      const registry = new LogRegistry(definitions.map((definition, i) => ({ definition, log: logs[i] as TransparencyLog })));

      preparer = await createEntryPreparer({
        workers: workerCount(options.canonicalizeWorkers ?? 'auto'),
        allowUndefinedTerms: options.allowUndefinedTerms ?? DEFAULT_UNDEFINED_TERMS,
        signer,
        signingKeyPem: key.privateKeyPem(),
      });
      const checker = new CredentialChecker({
        preparer,
        allowUndefinedTerms: options.allowUndefinedTerms ?? DEFAULT_UNDEFINED_TERMS,
        resolver: didVerificationMethodResolver({
          devMode: options.devMode ?? false,
          cacheTtlMs: options.didCacheTtlMs ?? 5 * 60_000,
          ...(options.didWebFetch ? { fetch: options.didWebFetch } : {}),
        }),
      });

      const rules = tokenRules(options.readTokens ?? [], options.writeTokens ?? []);
      const bodyLimit = options.requestBodyLimit ?? '1mb';
      const http = createHttpApp({
        metrics,
        bodyLimit,
        auth: { rules },
        health: { timeField: 'currentTime', statusField: 'status' },
        builtins: { health: 'open', metrics: options.metricsHost === undefined ? 'open' : false },
      });
      httpApp = http;
      // Bodies are small and never revalidated; hashing each one for an ETag is wasted work.
      http.app.set('etag', false);
      const activeProvider = provider;
      const activeSigner = signer;
      http.health.register('dbStatus', () => activeProvider.ping());
      http.health.register('kmsStatus', () => activeSigner.selfTest());
      http.health.addFields(() => ({ current_time: new Date().toISOString(), version: PROJECT_VERSION }));
      const logApi = new LogApi({ logs: registry, checker, signer, treeHeads: new SignedTreeHeads(signer), metrics: vctMetrics, maxGetEntries: options.maxGetEntries ?? 1000 });
      mountRoutes(
        http,
        vctLogRoutes(http, {
          logApi: logApiHandlers(logApi, vctMetrics),
          webFinger: webFingerHandler({ logs: registry, signer, metrics: vctMetrics, baseUrl: () => ensure(baseUrl, 'base URL') }),
        }),
      );

      const tls = options.tls ? { cert: await readFile(options.tls.certFile), key: await readFile(options.tls.keyFile) } : undefined;
      api = await startHttpServer(http.listener, { host, port: options.port ?? 0, ...(tls ? { tls } : {}) });
      baseUrl ??= `${tls ? 'https' : 'http'}://${displayHost(host)}:${api.port}`;
      if (options.metricsHost) metricsServer = await startMetricsServer(metrics, options.metricsHost);

      const useLease = options.useSequencerLease ?? storage.type === 'mongodb';
      sequencer = new Sequencer(logs, {
        intervalMs: options.integrationIntervalMs ?? 250,
        batchSize: options.integrationBatchSize ?? 2000,
        maxRootAgeMs: options.maxRootAgeMs ?? 60 * 60_000,
        ...(useLease ? { lease: await SequencerLease.open(provider, randomUUID(), options.sequencerLeaseMs ?? 10_000) } : {}),
        onIntegrated: (integratedLog, result, seconds) => {
          vctMetrics.integratedEntries.inc({ alias: integratedLog.alias }, result.integrated);
          vctMetrics.integrationBatchSeconds.observe({ alias: integratedLog.alias }, seconds);
          for (const delay of result.delaysMs) vctMetrics.integrationDelaySeconds.observe({ alias: integratedLog.alias }, delay / 1000);
        },
        onRoundFailed: (failedLog) => vctMetrics.integrationFailures.inc({ alias: failedLog.alias }),
        afterRound: () => {
          for (const served of logs) vctMetrics.treeSize.set({ alias: served.alias }, served.head().size);
        },
      });
      sequencer.start();
      log.info('vct-log started', { url: api.url, baseUrl, logs: definitions.map((d) => d.alias), logId: signer.logIdBase64, keyType: signer.keyType, storage: storage.type });
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    }
  }

  async function stop(): Promise<void> {
    // Requests first (their accepted entries are already durable), then the round in flight, then the rest.
    await api?.close();
    await metricsServer?.close();
    await sequencer?.stop();
    await preparer?.close();
    await provider?.close();
    api = metricsServer = sequencer = preparer = provider = undefined;
  }

  return {
    start,
    stop,
    get url() {
      return ensure(api, 'listener').url;
    },
    get metricsUrl() {
      return metricsServer?.url;
    },
    get baseUrl() {
      return ensure(baseUrl, 'base URL');
    },
    get logId() {
      return ensure(signer, 'key').logIdBase64;
    },
    get publicKey() {
      return Buffer.from(ensure(signer, 'key').publicKeyBytes);
    },
    integrateNow: () => ensure(sequencer, 'sequencer').runRound(),
    get http() {
      return ensure(httpApp, 'HTTP app');
    },
  };
}

/**
 * Bearer tokens as the original applies them: /healthcheck, WebFinger and /metrics are open; GETs need a
 * read token and POSTs (add-vc, log levels) a write token, each only when some are configured.
 */
function tokenRules(readTokens: readonly string[], writeTokens: readonly string[]): TokenRule[] {
  return [{ path: '/healthcheck' }, { path: '/\\.well-known/webfinger' }, { path: '/metrics' }, { path: '.*', read: readTokens, write: writeTokens }];
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

async function startMetricsServer(metrics: Metrics, where: HostPort): Promise<RunningHttpServer> {
  return startHttpServer(
    (req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
        void metrics.exposition().then(({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `no route for ${req.method ?? 'GET'} ${req.url ?? '/'}` }));
      }
    },
    { host: where.host, port: where.port },
  );
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
