import { afterEach, describe, expect, it } from 'vitest';
import type { MainIo } from '../config/index.js';
import { defineConfig, opt } from '../config/index.js';
import {
  createService,
  FATAL_CHECK_INTERVAL_MS,
  runService,
  type BaseContext,
  type Feature,
  type Service,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceSettings,
} from './index.js';

interface Config {
  failStartOf?: string;
  failCreateOf?: string;
}

const settings = (extra: Partial<ServiceSettings> = {}): ServiceSettings => ({
  listen: { host: '127.0.0.1', port: 0 },
  storage: { type: 'mem' },
  queue: { identity: 'https://kit-test.example/service' },
  bodyLimit: '1mb',
  tokens: { open: ['/healthcheck'], read: [], write: ['w-token'] },
  ...extra,
});

/** A service of three features that record what happens to them, with a slow route and a health probe. */
/** Every base context an `extend` saw, to check what a failed creation released. */
const bases: BaseContext<Config>[] = [];

function recordingService(
  events: string[],
  extra: Partial<ServiceSettings> = {},
): ServiceDefinition<Config, { greeting: string }, { names: string[] }> {
  return {
    name: 'kit-test',
    metricsPrefix: 'kit_',
    settings: () => settings(extra),
    extend: async (base) => {
      bases.push(base);
      events.push(`extend with ${base.storage ? 'storage' : 'nothing'}`);
      return { context: { greeting: 'hello' }, health: { kmsStatus: () => 'success' } };
    },
    features: async (context, add) => {
      context.http.routes.get('/slow', async (_req, res) => {
        events.push('slow request begins');
        await new Promise((resolve) => setTimeout(resolve, 150));
        events.push('slow request ends');
        res.json({ greeting: context.greeting });
      });
      const names = ['first', 'second', 'third'];
      for (const name of names) {
        if (context.config.failCreateOf === name) throw new Error(`${name} cannot be created`);
        add(recordingFeature(name, context, events));
      }
      return { names };
    },
    started: () => events.push('started'),
  };
}

function recordingFeature(name: string, context: ServiceContext<Config>, events: string[]): Feature {
  return {
    name,
    async start() {
      const health = await fetch(`${context.listener.url}/healthcheck`);
      events.push(`start ${name} (health ${health.status} ${((await health.json()) as { status: string }).status})`);
      if (context.config.failStartOf === name) throw new Error(`${name} cannot start`);
    },
    async stop() {
      events.push(`stop ${name} (queue ${queueState(context)})`);
    },
  };
}

function queueState(context: ServiceContext<Config>): string {
  try {
    return context.mq.isConnected() ? 'open' : 'closed';
  } catch {
    return 'none';
  }
}

const services: Array<Service<unknown, unknown>> = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

async function started<C, E extends object, P>(
  definition: ServiceDefinition<C, E, P>,
  config: C,
): Promise<Service<ServiceContext<C> & E, P>> {
  const service = await createService(definition, config);
  services.push(service as Service<unknown, unknown>);
  await service.start();
  return service;
}

describe('createService', () => {
  it('builds the context, starts features in order behind a "Starting" health, and reports OK once all have started', async () => {
    const events: string[] = [];
    const service = await started(recordingService(events), {});
    expect(events).toEqual([
      'extend with storage',
      'start first (health 503 Starting)',
      'start second (health 503 Starting)',
      'start third (health 503 Starting)',
      'started',
    ]);
    const health = await fetch(`${service.url}/healthcheck`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      dbStatus: 'success',
      mqStatus: 'success',
      kmsStatus: 'success',
      status: 'OK',
    });
    expect(service.context.greeting).toBe('hello');
    expect(service.parts.names).toEqual(['first', 'second', 'third']);
  });

  it('on stop lets in-flight requests finish, stops features in reverse, then closes the queue and the store', async () => {
    const events: string[] = [];
    const service = await started(recordingService(events), {});
    events.length = 0;
    const slow = fetch(`${service.url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await service.stop();
    expect((await slow).status).toBe(200);
    expect(events).toEqual([
      'slow request begins',
      'slow request ends',
      'stop third (queue open)',
      'stop second (queue open)',
      'stop first (queue open)',
    ]);
    expect(service.context.mq.isConnected()).toBe(false);
    await expect(Promise.resolve().then(() => service.context.storage.ping())).rejects.toThrow(/closed/);
    await expect(fetch(`${service.url}/healthcheck`)).rejects.toThrow();
    await service.stop();
  });

  it('stops the features already started when one fails to start, closes everything and rethrows', async () => {
    const events: string[] = [];
    const service = await createService(recordingService(events), { failStartOf: 'second' });
    await expect(service.start()).rejects.toThrow('second cannot start');
    expect(events.slice(1)).toEqual([
      'start first (health 503 Starting)',
      'start second (health 503 Starting)',
      'stop third (queue open)',
      'stop second (queue open)',
      'stop first (queue open)',
    ]);
    expect(service.context.mq.isConnected()).toBe(false);
    await expect(fetch(`${service.url}/healthcheck`)).rejects.toThrow();
    await expect(service.start()).rejects.toThrow(/already started/);
  });

  it('releases the store and the queue when a feature cannot be created', async () => {
    const events: string[] = [];
    await expect(createService(recordingService(events), { failCreateOf: 'third' })).rejects.toThrow(
      'third cannot be created',
    );
    expect(events).toEqual(['extend with storage', 'stop second (queue open)', 'stop first (queue open)']);
    const base = bases.at(-1) as BaseContext<Config>;
    expect(base.mq.isConnected()).toBe(false);
    await expect(Promise.resolve().then(() => base.storage.ping())).rejects.toThrow(/closed/);
  });

  it('applies the token rules: open paths for anyone, a write token for everything else that writes', async () => {
    const service = await started(recordingService([]), {});
    expect((await fetch(`${service.url}/loglevels`, { method: 'POST', body: 'info' })).status).toBe(401);
    expect(
      (
        await fetch(`${service.url}/loglevels`, {
          method: 'POST',
          body: 'info',
          headers: { authorization: 'Bearer w-token' },
        })
      ).status,
    ).not.toBe(401);
    expect((await fetch(`${service.url}/slow`)).status).toBe(200);
  });

  it('serves /metrics on a listener of its own when asked to, and not on the API listener', async () => {
    const service = await started(recordingService([], { metricsListen: { host: '127.0.0.1', port: 0 } }), {});
    expect(service.metricsUrl).toBeDefined();
    const metrics = await fetch(`${service.metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('kit_');
    expect((await fetch(`${service.metricsUrl}/healthcheck`)).status).toBe(404);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
  });

  it('has no queue (and no mqStatus) when the settings declare none', async () => {
    const service = await started(recordingService([], { queue: undefined }), {});
    expect(() => service.context.mq).toThrow(/no message queue/);
    expect(await (await fetch(`${service.url}/healthcheck`)).json()).not.toHaveProperty('mqStatus');
  });

  it('tells its fatal listeners, once, when the store says it needs a restart', async () => {
    const service = await started(recordingService([]), {});
    const reasons: string[] = [];
    service.onFatal((reason) => reasons.push(reason));
    await new Promise((resolve) => setTimeout(resolve, FATAL_CHECK_INTERVAL_MS + 200));
    expect(reasons).toEqual([]);
    // As the LMDB provider reports a write that failed half-way (storage full).
    (service.context.storage as { restartReason?: () => string | undefined }).restartReason = () =>
      'storage is unusable since a write failed (storage full)';
    await new Promise((resolve) => setTimeout(resolve, 2 * FATAL_CHECK_INTERVAL_MS + 200));
    expect(reasons).toEqual(['storage is unusable since a write failed (storage full)']);
    // Such a store is not closed on the way out: closing a database after a failed commit can crash the exit.
    let closed = false;
    (service.context.storage as { close: () => Promise<void> }).close = async () => {
      closed = true;
    };
    await service.stop();
    expect(closed).toBe(false);
  });
});

describe('runService', () => {
  const spec = defineConfig({
    program: 'kit-test',
    envPrefix: 'KIT',
    sections: { greeting: { text: opt.string({ flag: 'text', default: 'hi', help: 'what to say' }) } },
  });

  function fakeIo() {
    const handlers = new Map<string, () => void>();
    const record = { stdout: '', stderr: '', exits: [] as number[] };
    const io: MainIo = {
      stdout: (text) => void (record.stdout += text),
      stderr: (text) => void (record.stderr += text),
      exit: (code) => void record.exits.push(code),
      onSignal: (signal, handler) => void handlers.set(signal, handler),
    };
    return { io, record, signal: (name: string) => handlers.get(name)?.() };
  }

  it('reads the config, starts the service, and on SIGTERM stops it and exits 0', async () => {
    const events: string[] = [];
    const { io, record, signal } = fakeIo();
    let text: string | undefined;
    await runService(
      spec,
      (config) => {
        text = config.greeting.text;
        return createService(recordingService(events), {});
      },
      { logging: () => ({ levels: 'error' }), io, sources: { argv: [], env: { KIT_TEXT: 'hello' } } },
    );
    expect(text).toBe('hello');
    expect(events.at(-1)).toBe('started');
    signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.slice(-3)).toEqual([
      'stop third (queue open)',
      'stop second (queue open)',
      'stop first (queue open)',
    ]);
    expect(record.exits).toEqual([0]);
  });

  it('exits 2 with one line on a bad flag, before creating anything', async () => {
    const { io, record } = fakeIo();
    let created = false;
    await runService(
      spec,
      () => {
        created = true;
        return createService(recordingService([]), {});
      },
      { logging: () => ({ levels: 'error' }), io, sources: { argv: ['--bogus'], env: {} } },
    );
    expect(created).toBe(false);
    expect(record.exits).toEqual([2]);
    expect(record.stderr).toBe('kit-test: unknown option --bogus; run with --help to list the options\n');
  });
});
