import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtServiceMain, loopbackService, stopAllProcesses } from './index.js';

const FIXTURE = fileURLToPath(new URL('./fixture-service.test-helpers.ts', import.meta.url));

afterEach(async () => {
  await stopAllProcesses();
});

describe('builtServiceMain', () => {
  it('names the build command when a service is not built', () => {
    expect(() => builtServiceMain('no-such-service')).toThrow(
      /services\/no-such-service\/dist\/main\.js is missing: build first with `npx tsc -b services\/no-such-service`/,
    );
  });
});

describe('loopbackService', () => {
  it('starts the binary on its loopback port with the given arguments, again on the same port after a stop', async () => {
    const service = await loopbackService(FIXTURE, ['--greeting', 'hi']);
    expect(service.url).toBe(`http://127.0.0.1:${service.port}`);
    const first = await service.start();
    expect(await (await fetch(`${service.url}/`)).text()).toContain('hi');
    await first.stop();
    await service.start();
    expect((await fetch(`${service.url}/healthcheck`)).status).toBe(200);
  });
});
