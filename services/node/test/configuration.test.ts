import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, renderOptionsMarkdown, undocumentedOptions } from '@anchor/common/config';
import { builtServiceMain, runProcess } from '@anchor/testing/process';
import { describe, expect, it } from 'vitest';
import { nodeConfigSpec } from '../src/config.js';

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

describe('configuration', () => {
  it('the README documents every flag and environment variable', () => {
    expect(undocumentedOptions(nodeConfigSpec, README)).toEqual([]);
  });

  it("the README's flag table is the current rendering of the spec", () => {
    expect(README).toContain(renderOptionsMarkdown(nodeConfigSpec));
  });

  it('--help lists every flag and exits 0', async () => {
    const result = await runProcess(builtServiceMain('node'), { args: ['--help'] });
    expect(result.code).toBe(0);
    expect(undocumentedOptions(nodeConfigSpec, result.output)).toEqual([]);
  });

  it('a bad value exits non-zero with a clear message', async () => {
    const result = await runProcess(builtServiceMain('node'), {
      args: ['--host-url', '127.0.0.1:1', '--batch-writer-timeout', 'soon'],
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/batch-writer-timeout/);
  });

  it('options that contradict each other exit 2 with one line naming them', async () => {
    const result = await runProcess(builtServiceMain('node'), {
      args: ['--host-url', '127.0.0.1:1', '--witness-store-expiry-period', '5m'],
    });
    expect(result.code).toBe(2);
    expect(result.output).toMatch(
      /--witness-store-expiry-period \(5m\) must exceed --max-witness-delay \+ --max-clock-skew \(11m\)/,
    );
  });

  it('kms flags that cannot work together exit 2 naming them', () => {
    const problem = (argv: string[]) => {
      try {
        loadConfig(nodeConfigSpec, { argv: ['--host-url', '127.0.0.1:1', ...argv], env: {} });
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem(['--kms-url', 'http://kms'])).toMatch(/--kms-url needs --kms-keystore/);
    expect(problem(['--kms-url', 'http://kms/v1/keystores/ks', '--kms-capability', 'c'])).toBeUndefined();
    expect(
      problem(['--kms-url', 'http://kms/v1/keystores/ks', '--kms-capability', 'c', '--vc-sign-key-file', 'k.pem']),
    ).toMatch(/drop --vc-sign-key-file and --http-sign-key-file/);
    expect(problem(['--kms-http-key-id', 'k'])).toMatch(/--kms-http-key-id needs --kms-url/);
    expect(problem(['--kms-capability', 'c'])).toMatch(/--kms-capability needs --kms-url/);
  });

  it('--allowed-peer-networks takes CIDRs (flag or env) and names a bad one', () => {
    const load = (argv: string[], env: Record<string, string> = {}) =>
      loadConfig(nodeConfigSpec, { argv: ['--host-url', '127.0.0.1:1', ...argv], env });
    expect(load([]).server.allowedPeerNetworks).toEqual([]);
    expect(load(['--allowed-peer-networks', '10.0.0.0/8,fd00::/8']).server.allowedPeerNetworks).toEqual([
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    expect(load([], { ANCHOR_ALLOWED_PEER_NETWORKS: '172.16.0.0/12' }).server.allowedPeerNetworks).toEqual([
      '172.16.0.0/12',
    ]);
    expect(() => load(['--allowed-peer-networks', 'cluster.local'])).toThrow(
      /--allowed-peer-networks.*must be a CIDR such as 10\.0\.0\.0\/8/,
    );
  });
});
