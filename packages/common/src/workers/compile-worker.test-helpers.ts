import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const FILES = [
  'errors/index.ts',
  'workers/messages.ts',
  'workers/serve-tasks.ts',
  'workers/pool-worker.test-helpers.ts',
];

/**
 * Worker threads run JavaScript, and unit tests run from TypeScript sources: the test worker and the
 * modules it imports are transpiled into a temporary folder of the same layout.
 */
export async function compilePoolWorker(): Promise<{ file: URL; remove(): Promise<void> }> {
  const out = await mkdtemp(join(tmpdir(), 'pool-worker-'));
  await writeFile(join(out, 'package.json'), '{"type":"module"}');
  for (const path of FILES) {
    const source = await readFile(join(SRC, path), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const target = join(out, path.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  return {
    file: new URL(`file://${join(out, 'workers/pool-worker.test-helpers.js')}`),
    remove: () => rm(out, { recursive: true, force: true }),
  };
}
