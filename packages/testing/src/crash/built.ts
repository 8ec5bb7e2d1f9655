/**
 * Crash tests run child processes on the built `@anchor/common` (plain node cannot run the TypeScript
 * sources). CI builds before testing; locally this builds packages/common first when its output is
 * missing or older than the sources, under a lock so parallel test files do not build at once.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const COMMON = join(REPO_ROOT, 'packages', 'common');

function stale(module: string): boolean {
  const src = join(COMMON, 'src', module);
  const dist = join(COMMON, 'dist', module);
  for (const file of readdirSync(src)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const out = join(dist, file.replace(/\.ts$/, '.js'));
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(src, file)).mtimeMs) return true;
  }
  return false;
}

export function ensureCommonBuilt(modules: readonly string[]): void {
  if (!modules.some(stale)) return;
  const tsc = ['npx', 'tsc', '-b', 'packages/common'];
  const lock = existsSync('/usr/bin/flock') ? ['flock', '/tmp/anchor-common-build.lock', ...tsc] : tsc;
  let output = '';
  try {
    execFileSync(lock[0]!, lock.slice(1), { cwd: REPO_ROOT, stdio: 'pipe' });
  } catch (error) {
    const failed = error as { stdout?: Buffer; stderr?: Buffer };
    output = `${String(failed.stdout ?? '')}${String(failed.stderr ?? '')}`;
  }
  // tsc -b still emits when other modules of the package have type errors; only ours must be clean.
  const ours = output.split('\n').filter((line) => modules.some((m) => line.includes(`src/${m}/`)));
  if (ours.length > 0)
    throw new Error(`building packages/common failed in the modules under test:\n${ours.join('\n')}`);
  for (const m of modules) {
    if (!existsSync(join(COMMON, 'dist', m, 'index.js')))
      throw new Error(`packages/common/dist/${m} is missing after the build:\n${output}`);
  }
}

/** A child node process whose stdout lines are collected as they arrive. */
export class Child {
  readonly lines: string[] = [];
  readonly process: ChildProcess;
  private readonly waiters: Array<() => void> = [];
  stderr = '';
  exited = false;

  constructor(script: string, args: readonly string[]) {
    this.process = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      for (const w of this.waiters.splice(0)) w();
    });
    this.process.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.process.on('exit', () => {
      this.exited = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  count(prefix: string): number {
    return this.lines.filter((l) => l.startsWith(prefix)).length;
  }

  /** Waits until `n` lines start with `prefix`; fails if the child exits or `timeoutMs` passes first. */
  async waitFor(prefix: string, n: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(prefix) < n) {
      if (this.exited) throw new Error(`child exited before ${n} "${prefix}" lines:\n${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${n} "${prefix}" lines (got ${this.count(prefix)}):\n${this.stderr}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** SIGKILL: no cleanup, no flush, like a power cut for the process. */
  async kill(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((r) => this.process.once('exit', () => r()));
    this.process.kill('SIGKILL');
    await exited;
  }
}
