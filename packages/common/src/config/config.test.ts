import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConfigError,
  HelpRequested,
  defineConfig,
  describeConfig,
  formatDuration,
  loadConfig,
  opt,
  parseDuration,
  renderOptionsMarkdown,
  undocumentedOptions,
  type ConfigOf,
  type HostPort,
} from './index.js';

const spec = defineConfig({
  program: 'demo',
  description: 'A demo service.',
  version: '1.2.3',
  options: {
    hostUrl: opt.hostPort({
      flag: 'host-url',
      short: 'u',
      env: ['DEMO_HOST_URL'],
      required: true,
      help: 'listen address',
    }),
    name: opt.string({ flag: 'name', env: 'DEMO_NAME', default: 'demo', help: 'display name' }),
    externalEndpoint: opt.url({
      flag: 'external-endpoint',
      env: 'DEMO_EXTERNAL_ENDPOINT',
      protocols: ['http', 'https'],
      help: 'public URL',
    }),
    pageSize: opt.int({ flag: 'page-size', short: 'P', env: 'DEMO_PAGE_SIZE', default: 50, min: 1, help: 'page size' }),
    factor: opt.number({
      flag: 'backoff-factor',
      env: ['DEMO_BACKOFF_FACTOR', 'BACKOFF-FACTOR'],
      default: 1.5,
      min: 1,
      help: 'growth factor',
    }),
    devMode: opt.bool({ flag: 'enable-dev-mode', env: 'DEMO_DEV_MODE', help: 'development mode' }),
    batchTimeout: opt.duration({
      flag: 'batch-timeout',
      short: 'b',
      env: ['DEMO_BATCH_TIMEOUT', 'BATCH_WRITER_TIMEOUT'],
      default: '1m',
      min: '10ms',
      help: 'longest wait before a batch is cut',
    }),
    databaseType: opt.enum(['mem', 'lmdb', 'mongodb'], {
      flag: 'database-type',
      short: 't',
      env: ['DEMO_DATABASE_TYPE', 'DATABASE_TYPE'],
      default: 'lmdb',
      help: 'store',
    }),
    mode: opt.enum(['issuer', 'verifier'], { flag: 'mode', env: 'DEMO_MODE', help: 'mode' }),
    allowedOrigins: opt.list({ flag: 'allowed-origins', env: 'DEMO_ALLOWED_ORIGINS', help: 'origins' }),
    opTypes: opt.enumList(['create', 'update', 'recover'], {
      flag: 'op-types',
      env: 'DEMO_OP_TYPES',
      default: ['create', 'update'],
      help: 'types',
    }),
    tokens: opt.map({ flag: 'auth-tokens', env: 'DEMO_AUTH_TOKENS', secret: true, help: 'named tokens' }),
    apiToken: opt.string({ flag: 'api-token', env: 'DEMO_API_TOKEN', secret: true, help: 'bearer token' }),
    level: opt.custom({
      flag: 'log-level',
      env: ['DEMO_LOG_LEVEL', 'LOG_LEVEL'],
      type: 'level',
      default: 'info',
      parse: (raw: string) => {
        const level = raw.toLowerCase();
        if (level !== 'info' && level !== 'debug') throw new Error('unknown level');
        return level as 'info' | 'debug';
      },
      help: 'log level',
    }),
  },
});

const base = ['--host-url', '127.0.0.1:8080'];
const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(spec, { argv: [...base, ...argv], env });
const failure = (argv: string[], env: Record<string, string> = {}): ConfigError => {
  try {
    loadConfig(spec, { argv, env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('config types', () => {
  it('gives every option a precise static type', () => {
    type Config = ConfigOf<typeof spec>;
    expectTypeOf<Config['hostUrl']>().toEqualTypeOf<HostPort>();
    expectTypeOf<Config['name']>().toEqualTypeOf<string>();
    expectTypeOf<Config['externalEndpoint']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['pageSize']>().toEqualTypeOf<number>();
    expectTypeOf<Config['devMode']>().toEqualTypeOf<boolean>();
    expectTypeOf<Config['databaseType']>().toEqualTypeOf<'mem' | 'lmdb' | 'mongodb'>();
    expectTypeOf<Config['mode']>().toEqualTypeOf<'issuer' | 'verifier' | undefined>();
    expectTypeOf<Config['allowedOrigins']>().toEqualTypeOf<string[]>();
    expectTypeOf<Config['opTypes']>().toEqualTypeOf<('create' | 'update' | 'recover')[]>();
    expectTypeOf<Config['tokens']>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<Config['level']>().toEqualTypeOf<'info' | 'debug'>();
  });
});

describe('loadConfig', () => {
  it('takes a value that starts with a dash (a random id, a negative number) unless it is one of the short options', () => {
    // Random base64url ids start with '-' one time in 64: `--name -Xq3` must not read as a missing value.
    for (const value of ['-Xq3vZ_a9', '-5', '-', '-zed']) expect(load(['--name', value]).name).toBe(value);
    expect(load(['--name=-P']).name).toBe('-P');
  });

  it('applies defaults when nothing is set', () => {
    const config = load([]);
    expect(config).toEqual({
      hostUrl: { host: '127.0.0.1', port: 8080 },
      name: 'demo',
      externalEndpoint: undefined,
      pageSize: 50,
      factor: 1.5,
      devMode: false,
      batchTimeout: 60_000,
      databaseType: 'lmdb',
      mode: undefined,
      allowedOrigins: [],
      opTypes: ['create', 'update'],
      tokens: {},
      apiToken: undefined,
      level: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('lets a flag beat the env vars, and the canonical env var beat the generic one', () => {
    const env = { DEMO_DATABASE_TYPE: 'mem', DATABASE_TYPE: 'mongodb', BATCH_WRITER_TIMEOUT: '2000' };
    expect(load([], env).databaseType).toBe('mem');
    expect(load([], { DATABASE_TYPE: 'mongodb' }).databaseType).toBe('mongodb');
    expect(load(['-t', 'mongodb'], env).databaseType).toBe('mongodb');
    expect(load([], env).batchTimeout).toBe(2000);
    expect(load(['--batch-timeout=5s'], env).batchTimeout).toBe(5000);
  });

  it('reads <NAME>_FILE as the value of <NAME> from a file (mounted secrets), a set <NAME> beating it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-file-env-'));
    try {
      writeFileSync(join(dir, 'name'), 'from-file\n');
      writeFileSync(join(dir, 'size'), '7');
      expect(load([], { DEMO_NAME_FILE: join(dir, 'name') }).name).toBe('from-file');
      expect(load([], { DEMO_NAME: 'direct', DEMO_NAME_FILE: join(dir, 'name') }).name).toBe('direct');
      expect(load([], { DEMO_PAGE_SIZE_FILE: join(dir, 'size') }).pageSize).toBe(7);
      expect(() => load([], { DEMO_NAME_FILE: join(dir, 'missing') })).toThrow(
        /option --name \(env DEMO_NAME\): cannot read DEMO_NAME_FILE ".*missing": ENOENT/,
      );
      writeFileSync(join(dir, 'bad'), 'zero');
      expect(() => load([], { DEMO_PAGE_SIZE_FILE: join(dir, 'bad') })).toThrow(
        /from file .*bad \(DEMO_PAGE_SIZE_FILE\)/,
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('refuses a declaration where one env name is another one with _FILE', () => {
    expect(() =>
      defineConfig({
        program: 'clash',
        options: {
          key: opt.string({ flag: 'key', env: 'X_KEY', help: 'a key' }),
          keyFile: opt.string({ flag: 'key-file', env: 'X_KEY_FILE', help: 'a key file' }),
        },
      }),
    ).toThrow(/X_KEY and X_KEY_FILE are both declared/);
  });

  it('treats an env var set to the empty string as unset', () => {
    expect(load([], { DEMO_NAME: '', DEMO_PAGE_SIZE: '  ' }).name).toBe('demo');
    expect(loadConfig(spec, { argv: [], env: { DEMO_HOST_URL: ':9000' } }).hostUrl).toEqual({
      host: '0.0.0.0',
      port: 9000,
    });
  });

  it('accepts every spelling of a flag value', () => {
    expect(load(['--name', 'a']).name).toBe('a');
    expect(load(['--name=a=b']).name).toBe('a=b');
    expect(load(['-P', '7']).pageSize).toBe(7);
    expect(load(['-P=8']).pageSize).toBe(8);
    expect(load(['-P9']).pageSize).toBe(9);
    expect(load(['--name', 'x', '--name', 'y']).name).toBe('y');
    expect(load(['--name=']).name).toBe('');
  });

  it('reads booleans as switches, with explicit values attached', () => {
    expect(load(['--enable-dev-mode']).devMode).toBe(true);
    expect(load(['--enable-dev-mode=false']).devMode).toBe(false);
    expect(load([], { DEMO_DEV_MODE: 'TRUE' }).devMode).toBe(true);
    expect(load([], { DEMO_DEV_MODE: 'off' }).devMode).toBe(false);
    expect(load(['--enable-dev-mode=false'], { DEMO_DEV_MODE: 'true' }).devMode).toBe(false);
  });

  it('reads durations in Go syntax and as integer milliseconds', () => {
    expect(load(['-b', '500ms']).batchTimeout).toBe(500);
    expect(load(['-b', '1h30m']).batchTimeout).toBe(5_400_000);
    expect(load(['-b', '1.5s']).batchTimeout).toBe(1500);
    expect(load(['-b', '250']).batchTimeout).toBe(250);
  });

  it('collects lists from repeated flags and comma-separated values', () => {
    expect(load(['--allowed-origins', 'https://a', '--allowed-origins', 'https://b,https://c']).allowedOrigins).toEqual(
      ['https://a', 'https://b', 'https://c'],
    );
    expect(load([], { DEMO_ALLOWED_ORIGINS: 'https://a, https://b,' }).allowedOrigins).toEqual([
      'https://a',
      'https://b',
    ]);
    expect(load(['--op-types', 'CREATE,recover']).opTypes).toEqual(['create', 'recover']);
  });

  it('reads name=value maps, keeping "=" inside values', () => {
    expect(load([], { DEMO_AUTH_TOKENS: 'admin=QUJD==,read=xyz' }).tokens).toEqual({ admin: 'QUJD==', read: 'xyz' });
    expect(load(['--auth-tokens', 'a=1', '--auth-tokens', 'b=2']).tokens).toEqual({ a: '1', b: '2' });
  });

  it('matches enums case-insensitively and returns the declared spelling', () => {
    expect(load(['--database-type', 'MongoDB']).databaseType).toBe('mongodb');
    expect(load(['--mode', 'ISSUER']).mode).toBe('issuer');
  });

  it('parses numbers, URLs and custom values', () => {
    expect(load(['--backoff-factor', '2.25']).factor).toBe(2.25);
    expect(load([], { 'BACKOFF-FACTOR': '3' }).factor).toBe(3);
    expect(load(['--external-endpoint', 'https://node.example.com']).externalEndpoint).toBe('https://node.example.com');
    expect(load([], { LOG_LEVEL: 'DEBUG' }).level).toBe('debug');
    expect(load(['--host-url', '[::1]:0']).hostUrl).toEqual({ host: '::1', port: 0 });
  });

  it('does not share default lists between loads', () => {
    const first = load([]);
    first.opTypes.push('recover');
    expect(load([]).opTypes).toEqual(['create', 'update']);
  });
});

describe('loadConfig errors: one line naming the option (flag and env) and why', () => {
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['unknown flag', [...base, '--bogus=secret'], {}, /^unknown option --bogus; run with --help/],
    ['unknown short flag', [...base, '-z'], {}, /^unknown option -z;/],
    ['positional argument', [...base, 'start'], {}, /^unexpected argument "start"/],
    ['missing value', [...base, '--name'], {}, /^option --name \(env DEMO_NAME\): --name needs a value$/],
    [
      'the next option where the value belongs',
      [...base, '--name', '--page-size', '3'],
      {},
      /--name needs a value \(found the option --page-size instead; write --name=<value> for a value that starts with a dash\)$/,
    ],
    ['an unknown long option where the value belongs', [...base, '--name', '--nmae'], {}, /--name needs a value/],
    ['a short option where the value belongs', [...base, '--name', '-P', '3'], {}, /--name needs a value/],
    ['missing required', [], {}, /^option --host-url \(env DEMO_HOST_URL\): required but not set$/],
    [
      'bad host:port',
      ['--host-url', 'localhost'],
      {},
      /^option --host-url \(env DEMO_HOST_URL\): invalid value "localhost" from flag --host-url: not a host:port/,
    ],
    [
      'port out of range',
      ['-u', 'h:70000'],
      {},
      /invalid value "h:70000" from flag -u: port must be between 0 and 65535/,
    ],
    [
      'bad int',
      [...base, '--page-size', '1.5'],
      {},
      /^option --page-size \(env DEMO_PAGE_SIZE\): invalid value "1.5" from flag --page-size: not an integer$/,
    ],
    [
      'int below min',
      [...base],
      { DEMO_PAGE_SIZE: '0' },
      /invalid value "0" from env DEMO_PAGE_SIZE: must be at least 1$/,
    ],
    [
      'bad number',
      [...base, '--backoff-factor', 'fast'],
      {},
      /option --backoff-factor \(env DEMO_BACKOFF_FACTOR or BACKOFF-FACTOR\): invalid value "fast" from flag --backoff-factor: not a number/,
    ],
    ['number below min', [...base], { 'BACKOFF-FACTOR': '0.5' }, /from env BACKOFF-FACTOR: must be at least 1$/],
    [
      'bad bool',
      [...base, '--enable-dev-mode=maybe'],
      {},
      /^option --enable-dev-mode \(env DEMO_DEV_MODE\): invalid value "maybe" from flag --enable-dev-mode: not a boolean/,
    ],
    [
      'bad bool env',
      [...base],
      { DEMO_DEV_MODE: 'sure' },
      /invalid value "sure" from env DEMO_DEV_MODE: not a boolean/,
    ],
    [
      'bad duration',
      [...base, '-b', '10 seconds'],
      {},
      /^option --batch-timeout \(env DEMO_BATCH_TIMEOUT or BATCH_WRITER_TIMEOUT\): invalid value "10 seconds" from flag -b: not a duration; use Go syntax/,
    ],
    ['negative duration', [...base], { BATCH_WRITER_TIMEOUT: '-1s' }, /from env BATCH_WRITER_TIMEOUT: not a duration/],
    ['duration below min', [...base, '-b', '1ms'], {}, /must be at least 10ms$/],
    [
      'bad enum',
      [...base, '--database-type', 'couchdb'],
      {},
      /^option --database-type \(env DEMO_DATABASE_TYPE or DATABASE_TYPE\): invalid value "couchdb" from flag --database-type: must be one of mem, lmdb, mongodb$/,
    ],
    [
      'bad enum list item',
      [...base],
      { DEMO_OP_TYPES: 'create,delete' },
      /invalid value "delete" from env DEMO_OP_TYPES: must be one of create, update, recover$/,
    ],
    [
      'bad url',
      [...base, '--external-endpoint', 'node.example.com'],
      {},
      /^option --external-endpoint \(env DEMO_EXTERNAL_ENDPOINT\): invalid value "node.example.com" from flag --external-endpoint: not an absolute URL$/,
    ],
    ['url scheme', [...base, '--external-endpoint', 'ftp://x'], {}, /URL scheme must be one of http, https$/],
    [
      'custom parse failure',
      [...base],
      { LOG_LEVEL: 'loud' },
      /^option --log-level \(env DEMO_LOG_LEVEL or LOG_LEVEL\): invalid value "loud" from env LOG_LEVEL: unknown level$/,
    ],
  ];
  it.each(cases)('%s', (_name, argv, env, pattern) => {
    const error = failure(argv, env);
    expect(error.message).toMatch(pattern);
    expect(error.message).not.toContain('\n');
    expect(error.exitCode).toBe(2);
  });

  it('never echoes a secret value', () => {
    const map = failure([...base, '--auth-tokens', 'admin=s3cr3t,s3cr3t2']);
    expect(map.message).toBe(
      'option --auth-tokens (env DEMO_AUTH_TOKENS): invalid value from flag --auth-tokens: expected name=value',
    );
    const duplicate = failure([...base], { DEMO_AUTH_TOKENS: 'a=s3cr3t,a=other' });
    expect(duplicate.message).not.toMatch(/s3cr3t|other/);
    expect(duplicate.message).toMatch(/name "a" is given twice/);
  });

  it('keeps error lines single-line even for values with newlines', () => {
    const error = failure([...base, '--page-size', '1\n2']);
    expect(error.message).toContain('"1\\n2"');
    expect(error.message).not.toContain('\n');
  });
});

describe('help and docs', () => {
  const helpText = (argv: string[]): string => {
    try {
      loadConfig(spec, { argv, env: {} });
    } catch (error) {
      if (error instanceof HelpRequested) return error.text;
      throw error;
    }
    throw new Error('expected help');
  };

  it('lists every option with flag, env, type, default and help, even next to bad input', () => {
    const text = helpText(['--bogus', '--help']);
    expect(helpText(['-h'])).toBe(text);
    for (const def of Object.values(spec.options)) {
      expect(text).toContain(`--${def.flag}`);
      for (const env of def.env) expect(text).toContain(env);
      expect(text).toContain(def.help);
      if (!def.isSwitch) expect(text).toContain(`<${def.type}>`);
    }
    expect(text).toContain('-b, --batch-timeout <duration>');
    expect(text).toContain('env: DEMO_BATCH_TIMEOUT, BATCH_WRITER_TIMEOUT; default: 1m');
    expect(text).toContain('default: required');
    expect(text).toMatch(/--database-type <mem\|lmdb\|mongodb>/);
    expect(text).toContain('A demo service.');
  });

  it('prints the version', () => {
    expect(helpText(['--version'])).toBe('demo 1.2.3\n');
  });

  it('never shows a secret default', () => {
    const withSecret = defineConfig({
      program: 'x',
      options: { token: opt.string({ flag: 'token', secret: true, default: 'hunter2', help: 'token' }) },
    });
    expect(renderOptionsMarkdown(withSecret)).not.toContain('hunter2');
    expect(describeConfig(withSecret, loadConfig(withSecret, { argv: [], env: {} }))).toEqual({ token: '***' });
  });

  it('renders a Markdown table a README can embed, and finds what a README leaves out', () => {
    const markdown = renderOptionsMarkdown(spec);
    expect(markdown.split('\n')[0]).toBe('| Flag | Environment | Type | Default | Description |');
    expect(markdown).toContain(
      '| `-b`, `--batch-timeout` | `DEMO_BATCH_TIMEOUT`, `BATCH_WRITER_TIMEOUT` | duration | `1m` | longest wait before a batch is cut |',
    );
    expect(markdown).toContain('mem\\|lmdb\\|mongodb');
    expect(undocumentedOptions(spec, `# Demo\n\n${markdown}`)).toEqual([]);
    const partial = markdown.replace(/.*--page-size.*\n/, '');
    expect(undocumentedOptions(spec, partial)).toEqual(['--page-size', 'DEMO_PAGE_SIZE']);
    // `--name` inside `--name-prefix` does not count as documenting `--name`.
    expect(undocumentedOptions(spec, markdown.replace(/`--name`/, '`--name-prefix`'))).toContain('--name');
  });

  it('describes the effective configuration with secrets masked', () => {
    const config = load(['--api-token', 'abc'], { DEMO_AUTH_TOKENS: 'admin=x' });
    const described = describeConfig(spec, config);
    expect(described).toMatchObject({
      'host-url': '127.0.0.1:8080',
      'batch-timeout': '1m',
      'api-token': '***',
      'auth-tokens': '***',
      'op-types': 'create,update',
    });
    expect(described).not.toHaveProperty('external-endpoint');
  });
});

describe('defineConfig rejects declaration mistakes', () => {
  const build = (options: Parameters<typeof defineConfig>[0]['options']) => () =>
    defineConfig({ program: 'x', options });
  it('duplicates and reserved names', () => {
    expect(build({ a: opt.string({ flag: 'a', help: '' }), b: opt.string({ flag: 'a', help: '' }) })).toThrow(
      /declared twice/,
    );
    expect(build({ a: opt.string({ flag: 'help', help: '' }) })).toThrow(/reserved/);
    expect(build({ a: opt.string({ flag: 'a', short: 'h', help: '' }) })).toThrow(/reserved/);
    expect(
      build({
        a: opt.string({ flag: 'a', env: 'X', help: '' }),
        b: opt.string({ flag: 'b', env: ['Y', 'X'], help: '' }),
      }),
    ).toThrow(/X is declared twice/);
    expect(build({ a: opt.string({ flag: 'Cache-Expiration', help: '' }) })).toThrow(/lower-case/);
    expect(build({ a: opt.string({ flag: 'a', required: true, default: 'x', help: '' }) })).toThrow(
      /required option cannot have a default/,
    );
  });
  it('defaults that do not parse', () => {
    expect(() => opt.duration({ flag: 'd', default: 'soon', help: '' })).toThrow(/--d: default "soon" is invalid/);
    expect(() => opt.hostPort({ flag: 'h2', default: 'nowhere', help: '' })).toThrow(/default "nowhere" is invalid/);
    expect(() =>
      opt.int({ flag: 'i', default: 5, validate: (v) => (v % 2 === 0 ? undefined : 'must be even'), help: '' }),
    ).toThrow(/must be even/);
  });
});

describe('durations', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m30.5s', 9_930_500],
    ['1us', 0.001],
    ['1000ns', 0.001],
    ['.5s', 500],
    ['90', 90],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });
  it.each(['', 's', '1x', '1s2', '-1s', '1 s', '1e3ms', '1d', 'ms'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow();
  });
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1500, '1.5s'],
    [60_000, '1m'],
    [5_400_000, '1h30m'],
    [3_600_000, '1h'],
    [3_661_000, '1h1m1s'],
  ])('formats %d as %s and reads it back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('rules between options', () => {
  const windowed = defineConfig({
    program: 'demo-window',
    options: {
      delay: opt.duration({ flag: 'delay', default: '10m', help: 'how long a round may take' }),
      expiry: opt.duration({ flag: 'expiry', default: '12m', help: 'how long records are kept' }),
    },
    checks: [
      (c) =>
        c.expiry > c.delay
          ? undefined
          : `--expiry (${formatDuration(c.expiry)}) must exceed --delay (${formatDuration(c.delay)})`,
    ],
  });

  it('passes a configuration that keeps the rule', () => {
    expect(loadConfig(windowed, { argv: ['--expiry', '11m'], env: {} })).toMatchObject({
      delay: 600_000,
      expiry: 660_000,
    });
  });

  it('rejects one that breaks it with the rule’s own line, as a ConfigError (exit 2)', () => {
    let caught: unknown;
    try {
      loadConfig(windowed, { argv: ['--expiry', '5m'], env: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toBe('--expiry (5m) must exceed --delay (10m)');
    expect((caught as ConfigError).exitCode).toBe(2);
  });
});

describe('sections and the env rule', () => {
  const sectioned = defineConfig({
    program: 'demo-sections',
    envPrefix: 'DEMO',
    options: { hostUrl: opt.hostPort({ flag: 'host-url', default: ':8080', help: 'listen address' }) },
    sections: {
      anchoring: {
        batchTimeout: opt.duration({
          flag: 'batch-writer-timeout',
          env: ['BATCH_WRITER_TIMEOUT'],
          default: '1s',
          help: 'batch wait',
        }),
        maintenance: opt.bool({
          flag: 'enable-maintenance-mode',
          env: ['DEMO_MAINTENANCE_MODE', 'MAINTENANCE_MODE_ENABLED'],
          help: 'maintenance',
        }),
      },
      delivery: { pool: opt.int({ flag: 'pool', short: 'p', env: ['DEMO_POOL'], default: 4, help: 'pool size' }) },
    },
    checks: [(c) => (c.delivery.pool <= 100 ? undefined : '--pool must be at most 100')],
  });

  it('gives each section a typed, frozen object of its own', () => {
    const config = loadConfig(sectioned, { argv: ['--batch-writer-timeout', '250ms', '-p', '8'], env: {} });
    expectTypeOf<ConfigOf<typeof sectioned>['anchoring']['batchTimeout']>().toEqualTypeOf<number>();
    expectTypeOf<ConfigOf<typeof sectioned>['delivery']['pool']>().toEqualTypeOf<number>();
    expect(config).toEqual({
      hostUrl: { host: '0.0.0.0', port: 8080 },
      anchoring: { batchTimeout: 250, maintenance: false },
      delivery: { pool: 8 },
    });
    expect(Object.isFrozen(config.anchoring)).toBe(true);
  });

  it('derives the first env name from the flag, keeping declared names as aliases in their order', () => {
    expect(sectioned.sections.anchoring.batchTimeout.env).toEqual([
      'DEMO_BATCH_WRITER_TIMEOUT',
      'BATCH_WRITER_TIMEOUT',
    ]);
    expect(sectioned.sections.anchoring.maintenance.env).toEqual([
      'DEMO_ENABLE_MAINTENANCE_MODE',
      'DEMO_MAINTENANCE_MODE',
      'MAINTENANCE_MODE_ENABLED',
    ]);
    expect(sectioned.sections.delivery.pool.env).toEqual(['DEMO_POOL']);
    const read = (env: Record<string, string>) => loadConfig(sectioned, { argv: [], env }).anchoring.maintenance;
    expect(read({ DEMO_ENABLE_MAINTENANCE_MODE: 'true' })).toBe(true);
    expect(read({ DEMO_MAINTENANCE_MODE: 'true' })).toBe(true);
    expect(read({ MAINTENANCE_MODE_ENABLED: 'true' })).toBe(true);
    expect(read({ DEMO_ENABLE_MAINTENANCE_MODE: 'false', MAINTENANCE_MODE_ENABLED: 'true' })).toBe(false);
  });

  it('checks rules over sections, and lists sectioned options in help, docs and the configuration line', () => {
    expect(() => loadConfig(sectioned, { argv: ['--pool', '101'], env: {} })).toThrow('--pool must be at most 100');
    const markdown = renderOptionsMarkdown(sectioned);
    expect(undocumentedOptions(sectioned, markdown)).toEqual([]);
    expect(markdown).toContain('`DEMO_BATCH_WRITER_TIMEOUT`, `BATCH_WRITER_TIMEOUT`');
    expect(describeConfig(sectioned, loadConfig(sectioned, { argv: [], env: {} }))).toMatchObject({
      'host-url': '0.0.0.0:8080',
      'batch-writer-timeout': '1s',
      pool: '4',
    });
  });

  it('rejects a section named like a top-level option, and a flag declared in two sections', () => {
    expect(() =>
      defineConfig({ program: 'x', options: { a: opt.string({ flag: 'a', help: '' }) }, sections: { a: {} } }),
    ).toThrow(/same name/);
    expect(() =>
      defineConfig({
        program: 'x',
        sections: { s: { a: opt.string({ flag: 'a', help: '' }) }, t: { b: opt.string({ flag: 'a', help: '' }) } },
      }),
    ).toThrow(/declared twice/);
    expect(() => defineConfig({ program: 'x', envPrefix: 'demo', options: {} })).toThrow(/envPrefix/);
  });
});
