import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Preloaded into every started process: when the test process that spawned it goes away (even killed
 * with SIGKILL, which runs no cleanup), the IPC channel closes and the child stops itself with SIGTERM,
 * so its own graceful shutdown runs. The channel is unref'd so it never keeps the child alive.
 */
const WATCHDOG = `
if (process.channel) {
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel.unref();
}
`;

const REGISTER_TYPESCRIPT = `
import { register } from 'node:module';
register('./typescript-hooks.mjs', import.meta.url);
`;

/**
 * Module hooks that let a child run TypeScript sources without a build (the workspace's own convention:
 * \`.js\` specifiers that name \`.ts\` files, ESM, type-only imports marked). Each file is transpiled alone,
 * without type checking: tests and \`tsc\` do that.
 */
const typescriptHooks = (typescriptPath: string): string => `
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)(${JSON.stringify(typescriptPath)});
const TS_FILE = /\\.m?ts$/;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    const fromTs = TS_FILE.test(context.parentURL ?? '');
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && relative && fromTs && /\\.m?js$/.test(specifier)) {
      return nextResolve(specifier.replace(/js$/, 'ts'), context);
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS_FILE.test(url)) return nextLoad(url, context);
  const source = await readFile(new URL(url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
      inlineSources: true,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
`;

let launchDir: string | undefined;

/**
 * The three small files live in a directory named by a hash of their contents, so concurrent test
 * workers share them, later runs reuse them, and nothing needs deleting (a killed worker cleans nothing).
 * Each file is written to a temporary name and renamed into place, so no reader sees half a file.
 */
function ensureLaunchFiles(): string {
  if (launchDir) return launchDir;
  let typescriptPath: string;
  try {
    typescriptPath = createRequire(import.meta.url).resolve('typescript');
  } catch (error) {
    throw new Error('running a .ts entry point needs the typescript package (a workspace dev dependency)', {
      cause: error,
    });
  }
  const files: Record<string, string> = {
    'watchdog.mjs': WATCHDOG,
    'typescript.mjs': REGISTER_TYPESCRIPT,
    'typescript-hooks.mjs': typescriptHooks(typescriptPath),
  };
  const hash = createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `anchor-launch-${process.getuid?.() ?? 'user'}-${hash}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const target = join(dir, name);
    if (existsSync(target)) continue;
    const partial = `${target}.${process.pid}.tmp`;
    writeFileSync(partial, content);
    renameSync(partial, target);
  }
  launchDir = dir;
  return dir;
}

/** True for entry points the child must transpile (`.ts`, `.mts`). */
export function isTypeScript(file: string): boolean {
  return /\.m?ts$/.test(file);
}

/**
 * Node flags for a child running `file`: the watchdog always; for TypeScript entries also the transpiling
 * hooks and the `development` export condition, so workspace packages resolve to their sources as they
 * do in vitest. Built entries (`dist/main.js`) run exactly as in production, plus the watchdog.
 */
export function nodeArguments(file: string): string[] {
  // A built entry gets the watchdog inline (a data: URL), so `npm start` writes nothing to the temp folder
  // and leaves nothing there; only TypeScript entries (tests) need the hook files on disk.
  if (!isTypeScript(file))
    return ['--enable-source-maps', '--import', `data:text/javascript,${encodeURIComponent(WATCHDOG)}`];
  const dir = ensureLaunchFiles();
  return [
    '--enable-source-maps',
    '--import',
    pathToFileURL(join(dir, 'watchdog.mjs')).href,
    '--conditions=development',
    '--import',
    pathToFileURL(join(dir, 'typescript.mjs')).href,
  ];
}
