/**
 * The frame of a describe block of process tests: every process started stops after each test, and every
 * temp dir made through `tempDir` is removed after the block. (Apart from `@anchor/testing/process`, which
 * benches use outside vitest.)
 */
import { afterAll, afterEach } from 'vitest';
import { makeTempDir, stopAllProcesses, type TempDir } from '../process/index.js';

export function processTestScope(): { tempDir(prefix: string): Promise<TempDir> } {
  const dirs: TempDir[] = [];
  afterEach(async () => {
    await stopAllProcesses();
  });
  afterAll(async () => {
    for (const dir of dirs) await dir.remove();
  });
  return {
    async tempDir(prefix) {
      const dir = await makeTempDir(prefix);
      dirs.push(dir);
      return dir;
    },
  };
}
