import { afterEach, describe, expect, it } from 'vitest';
import { FATAL_CHECK_INTERVAL_MS, serviceHandle, type ServiceDefinition } from './index.js';

interface Parts {
  greeting: string;
}

const definition: ServiceDefinition<{ metrics?: boolean }, object, Parts> = {
  name: 'handle-test',
  metricsPrefix: 'handle_',
  settings: (config) => ({
    listen: { host: '127.0.0.1', port: 0 },
    ...(config.metrics ? { metricsListen: { host: '127.0.0.1', port: 0 } } : {}),
    storage: { type: 'mem' },
    bodyLimit: '1mb',
    tokens: { open: ['/healthcheck'], read: [], write: [] },
  }),
  features: async () => ({ greeting: 'hello' }),
};

const handles: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.stop();
});

function handleOf(config: { metrics?: boolean } = {}) {
  const handle = serviceHandle('handle-test', definition, config, (running) => ({
    get greeting() {
      return running('greeting').parts.greeting;
    },
    shout: () => running('voice').parts.greeting.toUpperCase(),
    get storage() {
      return running('store').context.storage as { restartReason?: () => string | undefined };
    },
  }));
  handles.push(handle);
  return handle;
}

describe('serviceHandle', () => {
  it('names what is not there before start, and stops without having started', async () => {
    const handle = handleOf();
    expect(() => handle.url).toThrow('handle-test is not started (no listener yet)');
    expect(() => handle.http).toThrow('handle-test is not started (no HTTP app yet)');
    expect(() => handle.greeting).toThrow('handle-test is not started (no greeting yet)');
    expect(() => handle.shout()).toThrow('handle-test is not started (no voice yet)');
    expect(handle.metricsUrl).toBeUndefined();
    await handle.stop();
  });

  it('serves once started, with the service members read live through running', async () => {
    const handle = handleOf({ metrics: true });
    await handle.start();
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(handle.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(handle.greeting).toBe('hello');
    expect(handle.shout()).toBe('HELLO');
    expect(handle.http.health).toBeDefined();
    expect((await fetch(`${handle.url}/healthcheck`)).status).toBe(200);
  });

  it('starts once', async () => {
    const handle = handleOf();
    await handle.start();
    await expect(handle.start()).rejects.toThrow('handle-test is already started');
  });

  it('hands fatal listeners given before start to the service it builds, and later ones too', async () => {
    const handle = handleOf();
    const told: string[] = [];
    handle.onFatal((reason) => told.push(`early: ${reason}`));
    await handle.start();
    handle.onFatal((reason) => told.push(`late: ${reason}`));
    handle.storage.restartReason = () => 'storage full';
    await new Promise((resolve) => setTimeout(resolve, FATAL_CHECK_INTERVAL_MS + 300));
    expect(told).toEqual(['early: storage full', 'late: storage full']);
  });
});
