import { describe, expect, it } from 'vitest';
import { runMain, type MainIo } from './index.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('runMain and a service that cannot go on', () => {
  it('stops it and exits 1 with one line when it reports a fatal condition, once', async () => {
    const record = { stderr: '', exits: [] as number[], stops: 0 };
    const io: MainIo = {
      stdout: () => undefined,
      stderr: (t) => void (record.stderr += t),
      exit: (c) => void record.exits.push(c),
      onSignal: () => undefined,
    };
    let fatal: ((reason: string) => void) | undefined;
    await runMain(
      () => ({
        stop: async () => {
          record.stops++;
        },
        onFatal: (listener) => {
          fatal = listener;
        },
      }),
      { io, program: 'svc' },
    );
    expect(record.exits).toEqual([]);
    fatal?.('storage is unusable since a write failed (storage full: ENOSPC)');
    fatal?.('again');
    await tick();
    expect(record.stops).toBe(1);
    expect(record.exits).toEqual([1]);
    expect(record.stderr).toBe(
      'svc: storage is unusable since a write failed (storage full: ENOSPC); stopping so that a supervisor restarts the process\n',
    );
  });
});
