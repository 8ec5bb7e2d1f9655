import { describe, expect, it } from 'vitest';
import { ConfigError, defineConfig, loadConfig, opt } from '../config/index.js';
import {
  logOptions,
  metricsHostOption,
  requestBodyLimitOption,
  storageOptions,
  tlsServeOptions,
  tlsServePairCheck,
  tracingOptions,
} from '../config/shared/index.js';
import { serviceOptionsOf, serviceSettingsOf, storageSettingsOf, tlsSettingsOf } from './index.js';

const spec = defineConfig({
  program: 'kit-options-test',
  envPrefix: 'KOT',
  options: {
    hostUrl: opt.hostPort({ flag: 'host-url', default: '0.0.0.0:8080', help: 'listen address' }),
    dataDir: opt.string({ flag: 'data-dir', default: 'data', help: 'data directory' }),
    ...tracingOptions(),
    ...storageOptions(),
    ...tlsServeOptions(),
    metricsHost: metricsHostOption({ short: 'm' }),
    requestBodyLimit: requestBodyLimitOption(),
    ...logOptions({ example: 'kot-server=debug:info', short: 'l' }),
  },
  checks: [tlsServePairCheck],
});

const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(spec, { argv, env });

describe('the option groups every service takes', () => {
  it('give the defaults and read flags, shorts and env names', () => {
    const defaults = load([]);
    expect(defaults.requestBodyLimit).toBe('1mb');
    expect(defaults.metricsHost).toBeUndefined();
    expect(tlsSettingsOf(defaults)).toBeUndefined();
    const given = load(
      ['--tls-serve-cert', 'c.pem', '--tls-serve-key', 'k.pem', '-m', '127.0.0.1:9100', '-l', 'debug'],
      { KOT_REQUEST_BODY_LIMIT: '512kb', KOT_LOG_FORMAT: 'json' },
    );
    expect(tlsSettingsOf(given)).toEqual({ certFile: 'c.pem', keyFile: 'k.pem' });
    expect(given.metricsHost).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(given.requestBodyLimit).toBe('512kb');
    expect(given.logFormat).toBe('json');
    expect(load([], { LOG_LEVEL: 'warning' }).logLevel).not.toEqual(defaults.logLevel);
  });

  it('refuse a body limit that is no size and half a TLS pair, naming the options', () => {
    expect(() => load(['--request-body-limit', 'lots'])).toThrow(ConfigError);
    expect(() => load(['--request-body-limit', 'lots'])).toThrow(/must be a size such as 512kb or 1mb/);
    expect(() => load(['--tls-serve-cert', 'c.pem'])).toThrow(
      'options --tls-serve-cert and --tls-serve-key: give both to serve HTTPS, or neither',
    );
  });
});

describe('serviceOptionsOf', () => {
  it('maps those flags onto the options createServer takes', () => {
    const flags = load(
      ['--host-url', '127.0.0.1:9000', '--data-dir', 'var', '--database-type', 'mem', '--tls-serve-cert', 'c.pem'],
      {
        KOT_LMDB_COMMIT_INTERVAL: '10ms',
        KOT_TLS_SERVE_KEY: 'k.pem',
        KOT_TRACING_OTLP_URL: 'http://collector:4318/v1/traces',
        KOT_DATABASE_PREFIX: 'p_',
      },
    );
    expect(serviceOptionsOf(flags)).toEqual({
      host: '127.0.0.1',
      port: 9000,
      dataDir: 'var',
      storage: {
        type: 'mem',
        url: undefined,
        prefix: 'p_',
        connectTimeoutMs: 30_000,
        commitIntervalMs: 10,
        stallToleranceMs: 10_000,
      },
      requestBodyLimit: '1mb',
      metricsHost: undefined,
      tracingOtlpUrl: 'http://collector:4318/v1/traces',
      tls: { certFile: 'c.pem', keyFile: 'k.pem' },
    });
  });
});

describe('serviceSettingsOf', () => {
  it('builds what the kit needs, with the defaults every service shares', () => {
    expect(serviceSettingsOf({})).toEqual({
      listen: { host: '127.0.0.1', port: 0 },
      tls: undefined,
      metricsListen: undefined,
      tracing: {},
      storage: { type: 'lmdb', dataDir: 'data', connectTimeoutMs: 0 },
      bodyLimit: '1mb',
      client: { ca: undefined },
    });
  });

  it('takes the options as given, the storage flags through storageSettingsOf', () => {
    const ca = [Buffer.from('-----BEGIN CERTIFICATE-----')];
    const storage = storageSettingsOf({
      databaseType: 'mongodb',
      databaseUrl: 'mongodb://db',
      databasePrefix: 'p_',
      databaseTimeout: 5_000,
      lmdbCommitInterval: 2,
    });
    const settings = serviceSettingsOf(
      {
        host: '0.0.0.0',
        port: 8080,
        dataDir: 'var',
        storage,
        requestBodyLimit: '2mb',
        metricsHost: { host: '127.0.0.1', port: 9100 },
        tracingOtlpUrl: 'http://collector:4318/v1/traces',
        tls: { certFile: 'c.pem', keyFile: 'k.pem' },
        caCertificates: ca,
      },
      { dataDir: 'unused' },
    );
    expect(settings).toEqual({
      listen: { host: '0.0.0.0', port: 8080 },
      tls: { certFile: 'c.pem', keyFile: 'k.pem' },
      metricsListen: { host: '127.0.0.1', port: 9100 },
      tracing: { otlpUrl: 'http://collector:4318/v1/traces' },
      storage: {
        type: 'mongodb',
        url: 'mongodb://db',
        prefix: 'p_',
        connectTimeoutMs: 5_000,
        commitIntervalMs: 2,
        dataDir: 'var',
      },
      bodyLimit: '2mb',
      client: { ca },
    });
    expect(serviceSettingsOf({}, { dataDir: 'data/vcs' }).storage.dataDir).toBe('data/vcs');
  });
});
