import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { basename } from 'node:path';
import { nodeArguments } from './node-launch.js';
import { waitFor } from './wait-for.js';

export interface ProcessOptions {
  args?: readonly string[];
  /** Variables for the child. Unless `inheritEnv`, it sees only these plus PATH, HOME, temp dirs, LANG and TZ. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Pass the whole test environment through (off by default so a developer's shell cannot change a test). */
  inheritEnv?: boolean;
  cwd?: string;
  /** Used in messages; defaults to the file name. */
  name?: string;
  /** Sees every chunk of output as it arrives (it is captured as well), e.g. to forward it to a terminal. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /**
   * Runs the child in its own process group, so a terminal's Ctrl-C reaches only this process, which then
   * stops the child once with `stop()` (a service receiving both signals would take the second as "exit
   * now"). The watchdog still stops it when this process goes away.
   */
  ownProcessGroup?: boolean;
}

export interface StartOptions extends ProcessOptions {
  /** Ready once this URL answers HTTP (any status, unless `readyStatus` says otherwise). */
  readyUrl?: string;
  readyStatus?: (status: number) => boolean;
  /** Ready once the output contains this text or matches this pattern. */
  readyLine?: string | RegExp;
  /** Default 30 s. */
  readyTimeoutMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const OUTPUT_CAP = 1024 * 1024;
const BASE_ENV = ['PATH', 'HOME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'TZ', 'SystemRoot'];
const live = new Set<ServiceProcess>();
let exitHookInstalled = false;

function childEnv(options: ProcessOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if (options.inheritEnv) Object.assign(env, process.env);
  else for (const name of BASE_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Keeps the last `cap` characters: a chatty process cannot exhaust the test's memory. */
function appendCapped(text: string, chunk: string, cap = OUTPUT_CAP): string {
  const joined = text + chunk;
  return joined.length > cap ? joined.slice(joined.length - cap) : joined;
}

/** A running `node <file>` child with its output captured. Stop it with `stop()` (SIGTERM) or `kill()`. */
export class ServiceProcess {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the process has exited and its output is complete. */
  readonly exited: Promise<ExitInfo>;
  private combined = '';
  private out = '';
  private err = '';
  private exit: ExitInfo | undefined;
  private readonly outputListeners = new Set<() => void>();

  constructor(
    private readonly child: ChildProcess,
    name: string,
    onOutput?: ProcessOptions['onOutput'],
  ) {
    this.name = name;
    if (child.pid === undefined) throw new Error(`${name}: the process did not start`);
    this.pid = child.pid;
    const capture = (stream: 'out' | 'err') => (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.combined = appendCapped(this.combined, text);
      if (stream === 'out') this.out = appendCapped(this.out, text);
      else this.err = appendCapped(this.err, text);
      for (const listener of this.outputListeners) listener();
      onOutput?.(text, stream === 'out' ? 'stdout' : 'stderr');
    };
    child.stdout?.on('data', capture('out'));
    child.stderr?.on('data', capture('err'));
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        for (const listener of this.outputListeners) listener();
        resolve(this.exit);
      });
    });
    live.add(this);
  }

  /** stdout and stderr interleaved as received (the last MiB). */
  output(): string {
    return this.combined;
  }

  stdout(): string {
    return this.out;
  }

  stderr(): string {
    return this.err;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  /** A failure message with the process's name, exit status and output tail. */
  describe(problem: string): string {
    const status = this.exit ? ` (exited with ${this.exit.signal ?? `code ${this.exit.code}`})` : '';
    const tail = this.combined.length > 8_000 ? `...${this.combined.slice(-8_000)}` : this.combined;
    return `${this.name} pid ${this.pid}${status}: ${problem}\n--- output ---\n${tail}--- end of output ---`;
  }

  /** Resolves with the first match of `pattern` in the output so far or to come; fails if the process exits first. */
  waitForLine(pattern: string | RegExp, timeoutMs = 30_000): Promise<string> {
    const find = (): string | undefined => {
      if (typeof pattern === 'string') return this.combined.includes(pattern) ? pattern : undefined;
      return pattern.exec(this.combined)?.[0];
    };
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        const found = find();
        if (found !== undefined) finish(() => resolve(found));
        else if (this.exit) finish(() => reject(new Error(this.describe(`exited before printing ${String(pattern)}`))));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(this.describe(`did not print ${String(pattern)} within ${timeoutMs} ms`)))),
        timeoutMs,
      );
      const finish = (action: () => void): void => {
        clearTimeout(timer);
        this.outputListeners.delete(settle);
        action();
      };
      this.outputListeners.add(settle);
      settle();
    });
  }

  /** Waits for the process to exit by itself. */
  async waitForExit(timeoutMs = 30_000): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(this.describe(`did not exit within ${timeoutMs} ms`))), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGTERM (graceful shutdown), then SIGKILL if it has not exited within `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const escalated = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        resolve();
      }, timeoutMs);
    });
    await Promise.race([this.exited, escalated]);
    clearTimeout(timer);
    return this.exited;
  }

  /** SIGKILL: the process gets no chance to clean up (crash tests). */
  async kill(): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

function spawnNode(file: string, options: ProcessOptions): ServiceProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort if a test forgot to stop something: a synchronous kill as the test process ends.
    process.once('exit', () => {
      for (const running of live) {
        try {
          process.kill(running.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
  const child = spawn(process.execPath, [...nodeArguments(file), file, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: childEnv(options),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: options.ownProcessGroup ?? false,
  });
  // The channel exists for the child's watchdog; it must not keep this process alive.
  child.channel?.unref();
  return new ServiceProcess(child, options.name ?? basename(file), options.onOutput);
}

/**
 * Starts `node <file> ...args` (TypeScript entries run from source) and waits until it is ready by URL
 * and/or output line. If it exits or is not ready in time, it is killed and the error carries its output.
 */
export async function startProcess(file: string, options: StartOptions = {}): Promise<ServiceProcess> {
  const started = spawnNode(file, options);
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  try {
    if (options.readyLine !== undefined) await started.waitForLine(options.readyLine, timeoutMs);
    if (options.readyUrl !== undefined)
      await waitForHttp(options.readyUrl, { timeoutMs, status: options.readyStatus, process: started });
    return started;
  } catch (error) {
    await started.kill();
    throw error;
  }
}

export interface RunResult extends ExitInfo {
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs `node <file> ...args` to completion (killed after `timeoutMs`, default 30 s), e.g. to check exit codes. */
export async function runProcess(
  file: string,
  options: ProcessOptions & { timeoutMs?: number } = {},
): Promise<RunResult> {
  const started = spawnNode(file, options);
  try {
    const exit = await started.waitForExit(options.timeoutMs ?? 30_000);
    return { ...exit, stdout: started.stdout(), stderr: started.stderr(), output: started.output() };
  } finally {
    await started.kill();
  }
}

/** Stops every process still running (SIGTERM, then SIGKILL): for an `afterAll`. */
export async function stopAllProcesses(timeoutMs = 10_000): Promise<void> {
  await Promise.all([...live].map((running) => running.stop(timeoutMs)));
}

/** Status of one GET without connection reuse, or undefined when nothing answers yet. */
function probe(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const client = url.startsWith('https:') ? https : http;
    const request = client.get(url, { agent: false, timeout: 2_000, rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

export interface WaitForHttpOptions {
  /** Default 30 s. */
  timeoutMs?: number;
  /** Which statuses count as ready; default any response. */
  status?: (status: number) => boolean;
  /** Fail at once, with its output, if this process exits while waiting. */
  process?: ServiceProcess;
}

/** Waits until `url` answers HTTP; resolves with the status. */
export async function waitForHttp(url: string, options: WaitForHttpOptions = {}): Promise<number> {
  const accept = options.status ?? (() => true);
  const watched = options.process;
  const stopPolling = new AbortController();
  let lastStatus: number | undefined;
  const ready = waitFor(
    async () => {
      lastStatus = await probe(url);
      return lastStatus !== undefined && accept(lastStatus) ? lastStatus : undefined;
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 100,
      description: `${url} to answer`,
      signal: stopPolling.signal,
    },
  ).catch((error: unknown) => {
    const seen = lastStatus === undefined ? 'no answer' : `last status ${lastStatus}`;
    const message = `${(error as Error).message}; ${seen}`;
    throw new Error(watched ? watched.describe(message) : message, { cause: error });
  });
  if (!watched) return ready;
  const exited = watched.exited.then((): never => {
    throw new Error(watched.describe(`exited while waiting for ${url}`));
  });
  try {
    return await Promise.race([ready, exited]);
  } finally {
    stopPolling.abort();
    ready.catch(() => undefined);
    exited.catch(() => undefined);
  }
}
