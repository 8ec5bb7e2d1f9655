import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built entry point: process tests run it exactly as production does (`npx tsc -b services/vcs` first). */
export const MAIN_JS = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export function requireBuiltMain(): string {
  if (!existsSync(MAIN_JS))
    throw new Error(`${MAIN_JS} is missing: build first with \`npx tsc -b services/vcs\` from the repository root`);
  const source = fileURLToPath(new URL('../src/server.ts', import.meta.url));
  if (statSync(source).mtimeMs > statSync(fileURLToPath(new URL('../dist/server.js', import.meta.url))).mtimeMs) {
    console.warn('vcs: dist/ is older than src/; rebuild before trusting process tests');
  }
  return MAIN_JS;
}
