import { describe, expect, it } from 'vitest';
import { defineConfig, loadConfig, renderHelp, type OptionDef } from '../index.js';
import {
  allowedPeerNetworksOption,
  hostUrlOption,
  logOptions,
  metricsHostOption,
  mqOptions,
  mqRedeliveryOptions,
  requestBodyLimitOption,
  serviceChecks,
  serviceTailOptions,
  storageOptions,
  tlsCaCertsOption,
  tlsServeOptions,
  tracingOptions,
} from './index.js';

/** What a service's `--help` and README show of an option, and what its env rule and parsing see. */
function declared(def: OptionDef<unknown>) {
  const value = def.defaultValue;
  return {
    flag: def.flag,
    short: def.short,
    env: def.env,
    type: def.type,
    required: def.required,
    secret: def.secret,
    default: value === undefined ? undefined : def.format(value as NonNullable<unknown>),
    help: def.help,
  };
}

const declaredAll = (options: Record<string, OptionDef<unknown>>) =>
  Object.fromEntries(Object.entries(options).map(([key, def]) => [key, declared(def)]));

// These declarations are every service's flags: a change here changes four `--help` outputs and four README
// tables, so it is made on purpose, here, and the READMEs regenerated.
describe('the shared option sections', () => {
  it('declare the listener flags', () => {
    expect(declared(hostUrlOption({ default: '0.0.0.0:8074' }))).toEqual({
      flag: 'host-url',
      short: undefined,
      env: [],
      type: 'host:port',
      required: false,
      secret: false,
      default: '0.0.0.0:8074',
      help: 'address the API listens on (host:port; :port for all interfaces)',
    });
    expect(declared(hostUrlOption({ short: 'u', env: ['API_HOST'], required: true }))).toMatchObject({
      short: 'u',
      env: ['API_HOST'],
      required: true,
      default: undefined,
    });
    expect(declaredAll(tlsServeOptions())).toEqual({
      tlsServeCert: {
        flag: 'tls-serve-cert',
        short: undefined,
        env: [],
        type: 'string',
        required: false,
        secret: false,
        default: undefined,
        help: 'PEM certificate file: serve HTTPS (with --tls-serve-key)',
      },
      tlsServeKey: {
        flag: 'tls-serve-key',
        short: undefined,
        env: [],
        type: 'string',
        required: false,
        secret: false,
        default: undefined,
        help: 'PEM private key file of --tls-serve-cert',
      },
    });
    expect(declared(requestBodyLimitOption())).toMatchObject({
      flag: 'request-body-limit',
      type: 'string',
      default: '1mb',
      help: 'largest request body accepted; larger ones get 413',
    });
    expect(declared(metricsHostOption())).toMatchObject({
      flag: 'metrics-host',
      short: undefined,
      type: 'host:port',
      default: undefined,
      help: 'serve /metrics on this separate listener instead of the API listener',
    });
    expect(declared(tlsCaCertsOption('the kms'))).toMatchObject({
      flag: 'tls-cacerts',
      type: 'list',
      help: "PEM files of CA certificates trusted for outbound https besides Node's bundled roots: the kms",
    });
    expect(declared(tracingOptions().tracingOtlpUrl)).toMatchObject({
      flag: 'tracing-otlp-url',
      env: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
      type: 'url',
      default: undefined,
    });
    expect(declared(allowedPeerNetworksOption().allowedPeerNetworks)).toMatchObject({
      flag: 'allowed-peer-networks',
      type: 'list',
    });
  });

  it("declare the storage flags, with the generic env names of the Go services' deployments", () => {
    expect(declaredAll(storageOptions({ type: 't', url: 'v' }))).toEqual({
      databaseType: {
        flag: 'database-type',
        short: 't',
        env: ['DATABASE_TYPE'],
        type: 'mem|lmdb|mongodb',
        required: false,
        secret: false,
        default: 'lmdb',
        help: 'storage: lmdb (embedded, durable, in --data-dir), mongodb (--database-url; use a replica set), or mem (nothing survives a restart)',
      },
      databaseUrl: {
        flag: 'database-url',
        short: 'v',
        env: ['DATABASE_URL'],
        type: 'string',
        required: false,
        secret: true,
        default: undefined,
        help: 'MongoDB connection string (mongodb://...)',
      },
      databasePrefix: {
        flag: 'database-prefix',
        short: undefined,
        env: ['DATABASE_PREFIX'],
        type: 'string',
        required: false,
        secret: false,
        default: undefined,
        help: 'prefix of the store (collection) names, so that several services or nodes can share one database',
      },
      lmdbCommitInterval: {
        flag: 'lmdb-commit-interval',
        short: undefined,
        env: ['LMDB_COMMIT_INTERVAL'],
        type: 'duration',
        required: false,
        secret: false,
        default: '4ms',
        help: 'lmdb group commit: shortest time between the starts of two commits; writes arriving sooner wait and are committed together (one fsync). A write after a quieter spell is committed at once. 0: each event turn commits its own writes',
      },
      databaseTimeout: {
        flag: 'database-timeout',
        short: undefined,
        env: [],
        type: 'duration',
        required: false,
        secret: false,
        default: '30s',
        help: 'how long start-up keeps retrying, with backoff (0.5 s doubling to 10 s), a database it cannot reach (0: one attempt)',
      },
      databaseStallTolerance: {
        flag: 'database-stall-tolerance',
        short: undefined,
        env: [],
        type: 'duration',
        required: false,
        secret: false,
        default: '10s',
        help: 'how long /healthcheck reports a database that stopped answering (connection open, no reply) as degraded (200, status Degraded) before it reports it unavailable (503): a load balancer keeps the replicas in rotation through a short stall and takes them out after a long one. A database that answers with an error is 503 at once',
      },
    });
  });

  it('declare the log flags', () => {
    expect(declaredAll(logOptions({ example: 'kms-server=debug:info' }))).toEqual({
      logLevel: {
        flag: 'log-level',
        short: undefined,
        env: ['LOG_LEVEL'],
        type: 'level spec',
        required: false,
        secret: false,
        default: 'info',
        help: 'log levels: error, warning, info or debug, optionally per module (kms-server=debug:info)',
      },
      logFormat: {
        flag: 'log-format',
        short: undefined,
        env: ['LOG_FORMAT'],
        type: 'json|text',
        required: false,
        secret: false,
        default: undefined,
        help: 'log line format (default: text on a terminal, json otherwise)',
      },
    });
  });

  it('declare the queue flags', () => {
    expect(declaredAll(mqOptions({ url: 'q' }))).toEqual({
      mqUrl: {
        flag: 'mq-url',
        short: 'q',
        env: ['MQ_URL'],
        type: 'string',
        required: false,
        secret: true,
        default: undefined,
        help: 'amqp:// URL of RabbitMQ, or the members of a RabbitMQ cluster as comma-separated URLs (tried in order; after a lost connection the next one); empty for the in-process queue',
      },
      mqQueueType: {
        flag: 'mq-queue-type',
        short: undefined,
        env: [],
        type: 'classic|quorum',
        required: false,
        secret: false,
        default: undefined,
        help: 'classic or quorum (replicated over a cluster, survives the loss of a minority of its members); default: quorum when --mq-url names several brokers, classic for one. Queues of a namespace keep the type they were created with',
      },
      mqNamespace: {
        flag: 'mq-namespace',
        short: undefined,
        env: ['MQ_NAMESPACE'],
        type: 'string',
        required: false,
        secret: false,
        default: undefined,
        help: "Prefix of this service's queue names, so services sharing a broker and vhost never take each other's work; default derived from the service id. Replicas of one service share it",
      },
    });
    expect(
      Object.values(mqRedeliveryOptions()).map((def) => [def.flag, def.env, def.type, declared(def).default]),
    ).toEqual([
      ['mq-redelivery-max-attempts', ['MQ_REDELIVERY_MAX_ATTEMPTS'], 'int', '30'],
      ['mq-redelivery-initial-interval', ['MQ_REDELIVERY_INITIAL_INTERVAL'], 'duration', '2s'],
      ['mq-redelivery-multiplier', ['MQ_REDELIVERY_MULTIPLIER'], 'number', '1.5'],
      ['mq-redelivery-max-interval', ['MQ_REDELIVERY_MAX_INTERVAL'], 'duration', '1m'],
    ]);
    const spec = defineConfig({ program: 'mq-options-test', options: mqOptions() });
    expect(() => loadConfig(spec, { argv: ['--mq-url', 'http://broker'], env: {} })).toThrow(/--mq-url/);
  });

  it('compose the service tail in the order --help lists it, and its checks', () => {
    const spec = defineConfig({
      program: 'shared-options-test',
      envPrefix: 'SOT',
      options: {
        hostUrl: hostUrlOption({ default: '127.0.0.1:0' }),
        ...storageOptions(),
        ...serviceTailOptions({ caCertsFor: 'everything', log: { example: 'sot=debug:info' } }),
      },
      checks: [...serviceChecks('SOT')],
    });
    expect(Object.values(spec.options).map((def) => def.flag)).toEqual([
      'host-url',
      'database-type',
      'database-url',
      'database-prefix',
      'lmdb-commit-interval',
      'database-timeout',
      'database-stall-tolerance',
      'request-body-limit',
      'metrics-host',
      'tracing-otlp-url',
      'tls-serve-cert',
      'tls-serve-key',
      'tls-cacerts',
      'log-level',
      'log-format',
    ]);
    // The env rule puts the prefixed name before the generic one.
    expect(spec.options.databaseType.env).toEqual(['SOT_DATABASE_TYPE', 'DATABASE_TYPE']);
    expect(renderHelp(spec)).toContain('env: SOT_LOG_LEVEL, LOG_LEVEL; default: info');
    const load = (argv: string[]) => loadConfig(spec, { argv, env: {} });
    expect(() => load(['--tls-serve-key', 'k.pem'])).toThrow(
      'options --tls-serve-cert and --tls-serve-key: give both to serve HTTPS, or neither',
    );
    expect(() => load(['--database-type', 'mongodb'])).toThrow(
      'option --database-url (env SOT_DATABASE_URL or DATABASE_URL): required with --database-type mongodb',
    );
    expect(load(['--database-type', 'mongodb', '--database-url', 'mongodb://db']).databaseType).toBe('mongodb');
  });
});
