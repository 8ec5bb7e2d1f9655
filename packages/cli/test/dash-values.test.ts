import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli.js';
import { GLOBAL_OPTIONS } from '../src/command.js';
import { joinDashValues } from '../src/dash-values.js';

const join = (...argv: string[]) => joinDashValues(argv, COMMANDS, GLOBAL_OPTIONS);

describe('values that start with a dash', () => {
  it('joins a dash-led value to its string option, where yargs would read it as short flags', () => {
    expect(join('kms', 'sign', '--keystore', '-Xq3vZ_a9', '--key', '-k9', '--message', 'hi')).toEqual([
      'kms',
      'sign',
      '--keystore=-Xq3vZ_a9',
      '--key=-k9',
      '--message',
      'hi',
    ]);
  });

  it('leaves a forgotten value to be reported: the next option, long or short', () => {
    expect(join('kms', 'sign', '--keystore', '--key', 'k')).toEqual(['kms', 'sign', '--keystore', '--key', 'k']);
    expect(join('did', 'resolve', '--token', '-n', 'http://x')).toEqual([
      'did',
      'resolve',
      '--token',
      '-n',
      'http://x',
    ]);
    expect(join('did', 'resolve', '--token', '-nt')).toEqual(['did', 'resolve', '--token', '-nt']);
  });

  it('leaves switches, unknown options and everything after -- alone', () => {
    expect(join('--json', '-x')).toEqual(['--json', '-x']);
    expect(join('--bogus', '-x')).toEqual(['--bogus', '-x']);
    expect(join('--', '--keystore', '-x')).toEqual(['--', '--keystore', '-x']);
    expect(join('--keystore', '-')).toEqual(['--keystore', '-']);
  });
});
