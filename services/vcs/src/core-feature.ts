import { join } from 'node:path';
import { serviceDidWebOptions, type ServiceEndpoint } from '@anchor/common/did';
import { createHttpClient, readCaCertificates, type HttpClient } from '@anchor/common/http-client';
import { createGuardedFetchJson, peerFetchPolicy } from '@anchor/common/httpsig';
import type { DocumentLoader } from '@anchor/common/jsonld';
import type { Feature } from '@anchor/common/service';
import { openStorage, STORE_STALL_TOLERANCE_MS } from '@anchor/common/service';
import { StallBoundedProbe } from '@anchor/common/http';
import { VctLog } from './anchoring/vct-log.js';
import { CredentialIssuer } from './credentials/issuer.js';
import { PresentationProver } from './credentials/holder.js';
import { ProofSigning } from './credentials/proof-signing.js';
import { CredentialVerifier } from './credentials/verifier.js';
import { DidCreation } from './dids/did-creation.js';
import { DidResolution } from './dids/did-resolution.js';
import { kmsSigningKeys } from './keys/kms-keys.js';
import { localSigningKeys } from './keys/local-keys.js';
import type { SigningKeys } from './keys/signing-keys.js';
import { Profiles } from './profiles/profiles.js';
import { StatusLists } from './credential-status/status-lists.js';
import { StatusSource } from './credential-status/status-source.js';
import type { VcsContext } from './vcs-context.js';
import { DEFAULT_RETRY } from './vcs-options.js';

/** The vcs's working parts, built once the store is open; the API feature serves them. */
export interface CoreFeature extends Feature {
  readonly keys: SigningKeys;
  readonly profiles: Profiles;
  readonly dids: DidCreation;
  readonly statusLists: StatusLists;
  readonly issuer: CredentialIssuer;
  readonly verifier: CredentialVerifier;
  readonly prover: PresentationProver;
  readonly log: VctLog | undefined;
  readonly signing: ProofSigning;
  /** The external base URL (status list URLs); known once the listener is up. */
  readonly baseUrl: string;
}

/** `documentLoader`: the bundled and the operator's JSON-LD contexts, for every signature and verification. */
export async function createCoreFeature(ctx: VcsContext, documentLoader: DocumentLoader): Promise<CoreFeature> {
  const { config, storage, http, vcsMetrics } = ctx;
  const tokens = config.requestTokens ?? {};
  const retry = config.retry ?? DEFAULT_RETRY;
  const ca = readCaCertificates(config.tlsCaCertFiles ?? []);
  const outbound: HttpClient = createHttpClient({
    timeoutMs: 10_000,
    retry: {
      attempts: retry.maxRetries + 1,
      initialMs: retry.initialBackoffMs,
      multiplier: retry.factor,
      maxMs: 10_000,
    },
    ...(ca.length > 0 ? { tls: { ca } } : {}),
  });
  let keys: SigningKeys | undefined;
  try {
    const keyStorage = await openStorage({
      ...(config.keyStorage ?? config.storage ?? { type: 'lmdb' }),
      dataDir: join(config.dataDir ?? 'data/vcs', 'kms-secrets'),
      connectTimeoutMs: config.keyStorage?.connectTimeoutMs ?? 0,
    });
    keys = config.kmsUrl
      ? await kmsSigningKeys({
          url: config.kmsUrl,
          keystore:
            config.kmsKeystore && config.kmsCapability
              ? { id: config.kmsKeystore, capability: config.kmsCapability }
              : undefined,
          ...(ca.length > 0 ? { tls: { ca } } : {}),
          keyStorage,
          retry,
        })
      : await localSigningKeys(keyStorage);
  } catch (error) {
    outbound.close();
    throw error;
  }
  const signingKeys = keys;

  let baseUrl = config.externalUrl?.replace(/\/+$/, '');
  const knownBaseUrl = (): string => {
    if (baseUrl === undefined) throw new Error('vcs is not started (no base URL yet)');
    return baseUrl;
  };
  const endpoint: ServiceEndpoint = {
    devMode: config.devMode ?? false,
    ownEndpoint: config.externalUrl,
    allowedPeerNetworks: config.allowedPeerNetworks,
    listenHost: config.host ?? '127.0.0.1',
    servesTls: config.tls !== undefined,
  };
  const resolution = new DidResolution({
    http: outbound,
    nodeUrl: config.nodeUrl?.replace(/\/+$/, ''),
    universalResolverUrl: config.universalResolverUrl?.replace(/\/+$/, ''),
    tokens: { node: tokens.node, resolver: tokens.resolver },
    cacheTtlMs: config.didCacheTtlMs ?? 60_000,
    // Issuer, holder and controller DIDs are anyone's to name: their did:web hosts get the SSRF guard.
    web: { ...serviceDidWebOptions({ ...endpoint, ca }), ...(config.didWebFetch ? { fetch: config.didWebFetch } : {}) },
  });
  const dids = new DidCreation({
    keys: signingKeys,
    resolution,
    http: outbound,
    nodeUrl: config.nodeUrl?.replace(/\/+$/, ''),
    nodeToken: tokens.node,
    publishTimeoutMs: config.didPublishTimeoutMs ?? 30_000,
  });
  const profiles = await Profiles.open(storage, signingKeys, dids, resolution);
  const statusLists = await StatusLists.open(storage, knownBaseUrl);
  const log = config.vctUrl
    ? new VctLog(
        config.vctUrl.replace(/\/+$/, ''),
        outbound,
        tokens.vct,
        documentLoader,
        config.vctMergeDelayMs ?? 5_000,
      )
    : undefined;
  const signing = new ProofSigning(signingKeys, resolution, documentLoader);
  const mode = config.mode ?? 'combined';
  const issuesHere = mode === 'issuer' || mode === 'combined';
  // Another issuer's status list is fetched once, through the guard: its URL is the request's to name.
  const fetchStatusList = createGuardedFetchJson({
    policy: peerFetchPolicy(endpoint),
    ca,
    purpose: 'status list credentials',
    maxBytes: 1024 * 1024,
    timeoutMs: 10_000,
  });
  const statusSource = new StatusSource(
    fetchStatusList,
    resolution,
    documentLoader,
    issuesHere ? { lists: statusLists, profiles, baseUrl: knownBaseUrl } : undefined,
  );

  // The keys' store (or the kms) can stall as the service's store can: probed the same way, so a short stall
  // reads Degraded (200) instead of timing the health check out into a 503.
  const keysHealth = new StallBoundedProbe(
    async () => {
      const status = await signingKeys.status();
      if (status !== 'success') throw new Error(status);
    },
    {
      unhealthyAfterMs: (config.keyStorage ?? config.storage)?.stallToleranceMs ?? STORE_STALL_TOLERANCE_MS,
      name: config.kmsUrl ? 'the kms' : 'the key store',
    },
  );
  http.health.register('kmsStatus', () => keysHealth.check());
  if (config.nodeUrl)
    http.health.register('nodeStatus', () => serviceHealth(outbound, config.nodeUrl as string, tokens.node));
  if (log) http.health.register('vctStatus', () => log.status());

  return {
    name: 'core',
    keys: signingKeys,
    profiles,
    dids,
    statusLists,
    log,
    signing,
    issuer: new CredentialIssuer(profiles, signing, statusLists, log, vcsMetrics),
    verifier: new CredentialVerifier(resolution, statusSource, log, vcsMetrics, documentLoader, {
      clockSkewMs: config.verifyClockSkewMs ?? 5 * 60_000,
    }),
    prover: new PresentationProver(profiles, signing, vcsMetrics),
    get baseUrl() {
      return knownBaseUrl();
    },
    async start() {
      baseUrl ??= `${ctx.listener.secure ? 'https' : 'http'}://${displayHost(config.host ?? '127.0.0.1')}:${ctx.listener.port}`;
    },
    async stop() {
      outbound.close();
      await signingKeys.close();
    },
  };
}

async function serviceHealth(http: HttpClient, url: string, token: string | undefined): Promise<string> {
  try {
    await http.get(`${url.replace(/\/+$/, '')}/healthcheck`, {
      timeoutMs: 3_000,
      retry: false,
      ...(token ? { token } : {}),
    });
    return 'success';
  } catch (error) {
    return `${url}: ${(error as Error).message}`;
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
