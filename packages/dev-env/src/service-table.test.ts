import { describe, expect, it } from 'vitest';
import { SERVICES } from './service-table.js';

describe('the service table', () => {
  it('starts all four services with the one log format and level the federation was given', () => {
    const place = { name: 'x', port: 1, url: 'http://127.0.0.1:1', dataDir: '/tmp/x' };
    for (const format of ['text', 'json'] as const)
      for (const [name, entry] of Object.entries(SERVICES)) {
        const flags = entry.flags(place, { logLevel: 'debug', logFormat: format });
        expect(flags.slice(flags.indexOf('--log-format'), flags.indexOf('--log-format') + 2), name).toEqual([
          '--log-format',
          format,
        ]);
        expect(flags[flags.indexOf('--log-level') + 1], name).toBe('debug');
      }
    expect(Object.keys(SERVICES).sort()).toEqual(['kms', 'node', 'vcs', 'vct-log']);
  });
});
