/**
 * What a newcomer does, on a fresh clone of this repository in a temporary folder: the README's commands as
 * written (`npm ci`, then `npm start` on free ports), then `npx anchor --help` and one command against the
 * federation `npm start` runs. It guards what a working tree hides: a bin that npm cannot link before the
 * build, a CLI that `npm start` does not build, a committed file that is missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, makeTempDir, waitForHttp, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Ran {
  code: number | null;
  output: string;
}

/** Runs a shell line in `cwd` (the README's lines are shell lines) and collects what it prints. */
function sh(line: string, cwd: string, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Two free consecutive ports (node1 and node2 listen on the first and the one after it). */
async function freePair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 65_535 && (await portIsFree(port + 1))) return port;
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const launchDirs = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('anchor-launch-'));

describe('a fresh clone, as the README says', () => {
  let dir: TempDir;
  let repo: string;
  let federation: ChildProcess | undefined;
  let federationOutput = '';
  const ports = { log: 0, node: 0, kms: 0, vcs: 0 };

  beforeAll(async () => {
    dir = await makeTempDir('anchor-fresh-clone-');
    repo = join(dir.path, 'anchor');
    // The committed tree only (HEAD): what a clone gets, without this checkout's builds and node_modules.
    const cloned = await sh(`git clone --quiet --depth 1 "file://${ROOT}" "${repo}"`, dir.path, 60_000);
    expect(cloned.code, cloned.output).toBe(0);
    Object.assign(ports, {
      log: await freePort(),
      node: await freePair(),
      kms: await freePort(),
      vcs: await freePort(),
    });
  }, 90_000);

  afterAll(async () => {
    // Only when the test failed before its clean stop: the whole group (npm, the launcher, the services).
    if (federation?.pid !== undefined && federation.exitCode === null && federation.signalCode === null) {
      try {
        process.kill(-federation.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await dir?.remove();
  });

  it('npm ci, npm start, then npx anchor against the federation it started', async () => {
    // `npm ci` as the README writes it; --prefer-offline takes the packages from the npm cache this
    // checkout's own `npm ci` filled (the same lockfile), which keeps the test to minutes.
    const installed = await sh('npm ci --prefer-offline --no-audit --no-fund', repo, 240_000);
    expect(installed.code, installed.output.slice(-3000)).toBe(0);
    // The engines every dependency declares accept the Node the README names (>= 20.19).
    expect(installed.output).not.toMatch(/EBADENGINE/);

    // npm linked `anchor` before anything was built: it says so, and how to build it.
    const unbuilt = await sh('npx anchor --help', repo, 60_000);
    expect([unbuilt.code, unbuilt.output.trim()]).toEqual([
      1,
      expect.stringMatching(/not built yet: run `npm run build`/),
    ]);

    const launchesBefore = new Set(launchDirs());
    federation = spawn(
      'npm',
      [
        'start',
        '--',
        '--log-port',
        String(ports.log),
        '--first-node-port',
        String(ports.node),
        '--kms-port',
        String(ports.kms),
        '--vcs-port',
        String(ports.vcs),
      ],
      { cwd: repo, detached: true, env: { ...process.env, NO_COLOR: '1', CI: '1' } },
    );
    federation.stdout!.on('data', (chunk: Buffer) => (federationOutput += chunk.toString()));
    federation.stderr!.on('data', (chunk: Buffer) => (federationOutput += chunk.toString()));
    const up = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300_000);
      const check = setInterval(() => {
        if (federationOutput.includes('The local federation is up:') || federation!.exitCode !== null) {
          clearInterval(check);
          clearTimeout(timer);
          resolve(federation!.exitCode === null);
        }
      }, 250);
    });
    expect(up, federationOutput.slice(-4000)).toBe(true);
    expect(federationOutput).toContain(`npx anchor vc issue vc.json --profile demo-issuer`);
    const node1 = `http://127.0.0.1:${ports.node}`;
    const node2 = `http://127.0.0.1:${ports.node + 1}`;
    await waitForHttp(`${node2}/healthcheck`, { timeoutMs: 30_000 });

    const help = await sh('npx anchor --help', repo, 60_000);
    expect(help.code, help.output).toBe(0);
    expect(help.output).toMatch(/anchor did\s+Create, update, recover, deactivate and resolve DIDs/);

    const status = await sh(
      `npx anchor federation status --nodes ${node1} ${node2} --log-url http://127.0.0.1:${ports.log}/main --json`,
      repo,
      60_000,
    );
    expect(status.code, status.output).toBe(0);
    const table = JSON.parse(status.output.slice(status.output.indexOf('{'))) as {
      nodes: Array<{ healthy: boolean; following: number }>;
    };
    expect(table.nodes.map((node) => [node.healthy, node.following])).toEqual([
      [true, 1],
      [true, 1],
    ]);

    // Ctrl-C (SIGINT to the group, as a terminal sends it) stops everything and leaves no launch folder behind.
    process.kill(-federation.pid!, 'SIGINT');
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      federation!.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    // npm itself ends by the signal; the federation under it stops cleanly and says so.
    expect(code === 0 || signal === 'SIGINT', `${code} ${signal}: ${federationOutput.slice(-2000)}`).toBe(true);
    expect(federationOutput).toMatch(/stopped; data kept in /);
    expect(launchDirs().filter((name) => !launchesBefore.has(name))).toEqual([]);
    expect(existsSync(join(repo, 'data', 'federation', 'node1'))).toBe(true);
  }, 600_000);
});
