import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ephemeralRangeStart,
  freePort,
  freePortRun,
  makeTempDir,
  runProcess,
  startProcess,
  stopAllProcesses,
  waitFor,
  waitForHttp,
} from './index.js';

const FIXTURE = fileURLToPath(new URL('./fixture-service.test-helpers.ts', import.meta.url));
const ORPHAN_PARENT = fileURLToPath(new URL('./orphan-parent.test-helpers.ts', import.meta.url));
const NEVER_READY = fileURLToPath(new URL('./never-ready.test-helpers.ts', import.meta.url));
const PRINTS_AND_ENDS = fileURLToPath(new URL('./prints-and-ends.test-helpers.ts', import.meta.url));
const TEMP_DIRS_AT_EXIT = fileURLToPath(new URL('./temp-dirs-at-exit.test-helpers.ts', import.meta.url));

const execFileAsync = promisify(execFile);

afterAll(() => stopAllProcesses());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('a service binary under runMain (real child process)', () => {
  it.each([
    [['--bogus'], {}, /^fixture-service: unknown option --bogus; run with --help to list the options\n$/],
    [
      ['--host-url', '127.0.0.1:0', '--slow', 'forever'],
      {},
      /^fixture-service: option --slow \(env FIXTURE_SLOW\): invalid value "forever" from flag --slow: not a duration/,
    ],
    [
      ['--host-url', '127.0.0.1:0'],
      { FIXTURE_SLOW: '5 minutes' },
      /^fixture-service: option --slow \(env FIXTURE_SLOW\): invalid value "5 minutes" from env FIXTURE_SLOW: not a duration/,
    ],
    [[], {}, /^fixture-service: option --host-url \(env FIXTURE_HOST_URL\): required but not set\n$/],
    [
      ['-u', 'nowhere'],
      {},
      /^fixture-service: option --host-url \(env FIXTURE_HOST_URL\): invalid value "nowhere" from flag -u: not a host:port/,
    ],
  ])('exits 2 with one line for %j %j', async (args, env, line) => {
    const result = await runProcess(FIXTURE, { args, env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(line);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('exits 1 with the reason when start-up fails after the config is read', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const result = await runProcess(FIXTURE, { args: ['--host-url', `127.0.0.1:${port}`] });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `fixture-service: start-up failed: Error: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`,
      );
    } finally {
      blocker.close();
    }
  });

  it('prints help listing every option and exits 0', async () => {
    const result = await runProcess(FIXTURE, { args: ['--help'] });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const expected of [
      'Usage: fixture-service [options]',
      '-u, --host-url <host:port>',
      '--slow <duration>',
      'FIXTURE_SLOW',
      'default: 300ms',
      '--greeting <string>',
      'FIXTURE_LOG_LEVEL, LOG_LEVEL',
      '-h, --help',
    ]) {
      expect(result.stdout).toContain(expected);
    }
  });

  it('starts, answers, and stops gracefully on SIGTERM with exit code 0', async () => {
    const port = await freePort();
    const service = await startProcess(FIXTURE, {
      args: ['--host-url', `127.0.0.1:${port}`],
      env: { FIXTURE_GREETING: 'from env' },
      readyUrl: `http://127.0.0.1:${port}/healthcheck`,
      readyStatus: (status) => status === 200,
    });
    expect(await get(`http://127.0.0.1:${port}/`)).toEqual({ status: 200, body: 'from env' });
    expect(service.output()).toMatch(/INFO +\[fixture\] listening url=http:\/\/127\.0\.0\.1:\d+/);

    const slow = get(`http://127.0.0.1:${port}/slow`);
    await waitFor(() => service.output().includes('listening'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const exit = await service.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    await expect(slow).resolves.toEqual({ status: 200, body: 'slow done' });
    expect(service.output()).toMatch(/stopping[\s\S]*stopped/);
    expect(isAlive(service.pid)).toBe(false);
  });

  it('can be killed without a chance to clean up', async () => {
    const service = await startProcess(FIXTURE, { args: ['-u', '127.0.0.1:0'], readyLine: /listening url=\S+/ });
    expect(await service.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(service.output()).not.toContain('stopping');
  });
});

describe('startProcess', () => {
  it('waits for a log line and returns the match', async () => {
    const service = await startProcess(FIXTURE, { args: ['-u', '127.0.0.1:0'], readyLine: 'listening' });
    const url = (await service.waitForLine(/http:\/\/127\.0\.0\.1:\d+/)).trim();
    expect((await get(url)).body).toBe('hello');
    await service.stop();
  });

  it('fails fast with the output when the process exits before it is ready', async () => {
    const started = Date.now();
    await expect(
      startProcess(FIXTURE, { args: ['--bogus'], readyUrl: 'http://127.0.0.1:9/', readyTimeoutMs: 20_000 }),
    ).rejects.toThrow(
      /fixture-service\.test-helpers\.ts pid \d+ \(exited with code 2\): exited while waiting for http:\/\/127\.0\.0\.1:9\/\n--- output ---\nfixture-service: unknown option --bogus/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('kills a process that is not ready in time and reports its output', async () => {
    const port = await freePort();
    // Long enough for the helper to have printed its line even on a loaded machine.
    const error = await startProcess(NEVER_READY, {
      readyUrl: `http://127.0.0.1:${port}/`,
      readyTimeoutMs: 4_000,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /timed out after 4000 ms waiting for http:\/\/127\.0\.0\.1:\d+\/ to answer; no answer/,
    );
    expect((error as Error).message).toContain('started but not listening');
    const pid = Number(/pid (\d+)/.exec((error as Error).message)?.[1]);
    expect(isAlive(pid)).toBe(false);
  });

  it('fails when the line never appears', async () => {
    await expect(startProcess(NEVER_READY, { readyLine: 'ready!', readyTimeoutMs: 300 })).rejects.toThrow(
      /did not print ready! within 300 ms/,
    );
  });

  it('does not pass the test environment unless asked', async () => {
    process.env.FIXTURE_GREETING = 'leaked';
    try {
      const isolated = await startProcess(FIXTURE, { args: ['-u', '127.0.0.1:0'], readyLine: /http:\S+/ });
      const inherited = await startProcess(FIXTURE, {
        args: ['-u', '127.0.0.1:0'],
        readyLine: /http:\S+/,
        inheritEnv: true,
      });
      const urlOf = async (p: typeof isolated) => (await p.waitForLine(/http:\/\/127\.0\.0\.1:\d+/)).trim();
      expect((await get(await urlOf(isolated))).body).toBe('hello');
      expect((await get(await urlOf(inherited))).body).toBe('leaked');
      await Promise.all([isolated.stop(), inherited.stop()]);
    } finally {
      delete process.env.FIXTURE_GREETING;
    }
  });

  it('lets a child that has finished its work exit by itself', async () => {
    const result = await runProcess(PRINTS_AND_ENDS, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ code: 0, signal: null, stdout: 'answer 42\n', stderr: '' });
  });

  it('hands output to onOutput as it arrives, and still captures it', async () => {
    const seen = { stdout: '', stderr: '' };
    const result = await runProcess(PRINTS_AND_ENDS, {
      timeoutMs: 10_000,
      onOutput: (chunk, stream) => (seen[stream] += chunk),
    });
    expect(seen).toEqual({ stdout: 'answer 42\n', stderr: '' });
    expect(result.stdout).toBe('answer 42\n');
  });

  it('runs a child in its own process group when asked', async () => {
    const port = await freePort();
    const grouped = await startProcess(FIXTURE, {
      args: ['--host-url', `127.0.0.1:${port}`],
      readyLine: 'listening',
      ownProcessGroup: true,
    });
    const groupOf = async (pid: number) =>
      (await execFileAsync('ps', ['-o', 'pgid=', '-p', String(pid)])).stdout.trim();
    expect(await groupOf(grouped.pid)).toBe(String(grouped.pid));
    expect(await groupOf(process.pid)).not.toBe(String(grouped.pid));
    expect(await grouped.stop()).toEqual({ code: 0, signal: null });
  });

  it('leaves no child behind when the process that started it is killed', async () => {
    const parent = await startProcess(ORPHAN_PARENT, { readyLine: /child-pid \d+/ });
    const childPid = Number(/child-pid (\d+)/.exec(parent.output())?.[1]);
    expect(isAlive(childPid)).toBe(true);
    await parent.kill();
    await waitFor(() => !isAlive(childPid), { timeoutMs: 10_000, description: `child ${childPid} to stop` });
  });
});

describe('waitForHttp', () => {
  it('resolves with the status once the URL answers', async () => {
    const port = await freePort();
    const server = http.createServer((_req, res) => res.writeHead(503).end());
    setTimeout(() => server.listen(port, '127.0.0.1'), 200);
    try {
      expect(await waitForHttp(`http://127.0.0.1:${port}/`, { timeoutMs: 5_000 })).toBe(503);
      await expect(
        waitForHttp(`http://127.0.0.1:${port}/`, { timeoutMs: 300, status: (s) => s === 200 }),
      ).rejects.toThrow(/last status 503$/);
    } finally {
      server.close();
    }
  });
});

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    expect(await waitFor(() => (++calls >= 3 ? `after ${calls}` : undefined), { intervalMs: 5 })).toBe('after 3');
  });

  it('times out naming what it waited for and the last error', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('not yet');
        },
        { timeoutMs: 100, intervalMs: 10, description: 'the log to catch up' },
      ),
    ).rejects.toThrow('timed out after 100 ms waiting for the log to catch up (last error: not yet)');
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('gave up')), 50);
    await expect(waitFor(() => false, { timeoutMs: 5_000, intervalMs: 10, signal: controller.signal })).rejects.toThrow(
      'gave up',
    );
  });
});

describe('freePort and makeTempDir', () => {
  it('finds a port that can be bound', async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    server.close();
    expect(port).toBeGreaterThan(0);
  });

  it('picks ports below the ephemeral range, never the same one twice, and skips one that is taken', async () => {
    const ephemeralLow = ephemeralRangeStart();
    const ports = new Set<number>();
    for (let i = 0; i < 50; i++) ports.add(await freePort());
    expect(ports.size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    const taken = net.createServer();
    const takenPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(takenPort, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < 50; i++) expect(await freePort()).not.toBe(takenPort);
    } finally {
      taken.close();
    }
  });

  it('hands out runs of consecutive ports that do not overlap what it handed out before', async () => {
    const single = await freePort();
    const runs = [await freePortRun(5), await freePortRun(5), await freePortRun(5)];
    const ports = [single, ...runs.flatMap((base) => [0, 1, 2, 3, 4].map((offset) => base + offset))];
    expect(new Set(ports).size).toBe(16);
    for (const port of ports) {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      server.close();
    }
  });

  it('reads the ephemeral range from the kernel, and falls back when it cannot', async () => {
    const dir = await makeTempDir('anchor-port-range-');
    try {
      await writeFile(join(dir.path, 'range'), '40000\t60999\n');
      expect(ephemeralRangeStart(join(dir.path, 'range'))).toBe(40_000);
      await writeFile(join(dir.path, 'low'), '1024\t65535\n');
      expect(ephemeralRangeStart(join(dir.path, 'low'))).toBe(32_768);
      expect(ephemeralRangeStart(join(dir.path, 'missing'))).toBe(32_768);
    } finally {
      await dir.remove();
    }
  });

  it('creates distinct directories and removes them with their contents', async () => {
    const a = await makeTempDir('anchor-process-test-');
    const b = await makeTempDir('anchor-process-test-');
    expect(a.path).not.toBe(b.path);
    await writeFile(join(a.path, 'data.json'), '{}');
    await a.remove();
    await a.remove();
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(b.path)).toBe(true);
    await b.remove();
  });

  it('removes the directories a process made when it exits, except those it keeps', async () => {
    const result = await runProcess(TEMP_DIRS_AT_EXIT, { timeoutMs: 10_000 });
    expect(result.code).toBe(0);
    const { kept, dropped } = JSON.parse(result.stdout) as { kept: string; dropped: string };
    expect(existsSync(dropped)).toBe(false);
    expect(existsSync(kept)).toBe(true);
    rmSync(kept, { recursive: true, force: true });
  });
});
