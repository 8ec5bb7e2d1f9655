import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { ConfigError, HelpRequested, runMain, type MainIo } from './index.js';

function fakeIo() {
  const handlers = new Map<string, () => void>();
  const record = { stdout: '', stderr: '', exits: [] as number[] };
  const io: MainIo = {
    stdout: (text) => void (record.stdout += text),
    stderr: (text) => void (record.stderr += text),
    exit: (code) => void record.exits.push(code),
    onSignal: (signal, handler) => void handlers.set(signal, handler),
  };
  const signal = (name: string) => handlers.get(name)?.();
  return { io, record, signal };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('runMain exit codes', () => {
  it('prints help on stdout and exits 0', async () => {
    const { io, record } = fakeIo();
    await runMain(
      () => {
        throw new HelpRequested('Usage: x\n');
      },
      { io, program: 'x' },
    );
    expect(record).toEqual({ stdout: 'Usage: x\n', stderr: '', exits: [0] });
  });

  it('prints one line for a configuration error and exits 2', async () => {
    const { io, record } = fakeIo();
    await runMain(
      async () => {
        throw new ConfigError('option --port: invalid value "x"');
      },
      { io, program: 'anchor-node' },
    );
    expect(record).toEqual({ stdout: '', stderr: 'anchor-node: option --port: invalid value "x"\n', exits: [2] });
  });

  it('exits 1 on other start-up failures, with a stack only for unexpected errors', async () => {
    const plain = fakeIo();
    await runMain(
      async () => {
        throw new TypeError('undefined is not a function');
      },
      { io: plain.io, program: 'svc' },
    );
    expect(plain.record.exits).toEqual([1]);
    expect(plain.record.stderr).toMatch(/^svc: start-up failed: TypeError: undefined is not a function\n\s+at /);

    const app = fakeIo();
    await runMain(
      async () => {
        throw new AppError('unavailable', 'database unreachable');
      },
      { io: app.io, program: 'svc' },
    );
    expect(app.record).toEqual({ stdout: '', stderr: 'svc: start-up failed: database unreachable\n', exits: [1] });
  });
});

describe('runMain signals', () => {
  it('stops the started service on SIGTERM and exits 0', async () => {
    const { io, record, signal } = fakeIo();
    let stopped = 0;
    await runMain(async () => ({ stop: async () => void stopped++ }), { io });
    expect(record.exits).toEqual([]);
    signal('SIGTERM');
    await tick();
    expect(stopped).toBe(1);
    expect(record.exits).toEqual([0]);
  });

  it('stops after start-up when the signal arrived during it', async () => {
    const { io, record, signal } = fakeIo();
    let stopped = false;
    await runMain(
      async () => {
        signal('SIGINT');
        await tick();
        return { stop: async () => void (stopped = true) };
      },
      { io },
    );
    expect(stopped).toBe(true);
    expect(record.exits).toEqual([0]);
  });

  it('exits 1 when stop fails or outlasts its timeout', async () => {
    const failing = fakeIo();
    await runMain(async () => ({ stop: async () => Promise.reject(new Error('flush failed')) }), {
      io: failing.io,
      program: 'svc',
    });
    failing.signal('SIGTERM');
    await tick();
    expect(failing.record.exits).toEqual([1]);
    expect(failing.record.stderr).toMatch(/^svc: stop failed: Error: flush failed/);

    const hanging = fakeIo();
    await runMain(async () => ({ stop: () => new Promise<void>(() => undefined) }), {
      io: hanging.io,
      program: 'svc',
      stopTimeoutMs: 30,
    });
    hanging.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(hanging.record.exits).toEqual([1]);
    expect(hanging.record.stderr).toBe('svc: stop did not finish within 30 ms\n');
  });

  it('exits 1 at once on a second signal', async () => {
    const { io, record, signal } = fakeIo();
    await runMain(async () => ({ stop: () => new Promise<void>(() => undefined) }), { io, program: 'svc' });
    signal('SIGTERM');
    signal('SIGINT');
    expect(record.exits).toEqual([1]);
    expect(record.stderr).toBe('svc: SIGINT again, exiting without waiting\n');
  });
});
