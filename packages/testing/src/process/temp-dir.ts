import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** Deletes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
  /** Leaves the directory on disk when the process exits (for a look at what a run left). */
  keep(): void;
}

const leftovers = new Set<string>();
let exitHookInstalled = false;

/** A fresh directory under the OS temp dir, removed by `remove()` or, failing that, when the process exits. */
export async function makeTempDir(prefix = 'anchor-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  leftovers.add(path);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
    });
  }
  return {
    path,
    remove: async () => {
      await rm(path, { recursive: true, force: true });
      leftovers.delete(path);
    },
    keep: () => {
      leftovers.delete(path);
    },
  };
}
