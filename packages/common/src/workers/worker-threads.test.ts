import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defineConfig, loadConfig } from '../config/index.js';
import { workerThreads, workerThreadsOption } from './index.js';

const spec = defineConfig({
  program: 'worker-threads-test',
  envPrefix: 'WTT',
  options: { entryWorkers: workerThreadsOption('entry-workers', 'threads for entries') },
});
const load = (argv: string[]) => loadConfig(spec, { argv, env: {} }).entryWorkers;

describe('workerThreadsOption', () => {
  it('reads auto (the default) or a count from 0 to 99', () => {
    expect(load([])).toBe('auto');
    expect(load(['--entry-workers', ' AUTO '])).toBe('auto');
    expect(load(['--entry-workers', '0'])).toBe(0);
    expect(load(['--entry-workers', '12'])).toBe(12);
  });

  it('refuses anything else, naming the rule', () => {
    for (const raw of ['100', '-1', 'two', '1.5'])
      expect(() => load(['--entry-workers', raw])).toThrow(/must be auto or a number of worker threads from 0 to 99/);
  });

  it('makes auto one thread per core', () => {
    expect(workerThreads('auto')).toBe(availableParallelism());
    expect(workerThreads(0)).toBe(0);
    expect(workerThreads(3)).toBe(3);
  });
});
