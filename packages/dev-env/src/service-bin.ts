import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The file a service package runs as, read from its own package.json `bin` (one entry): what a deployment
 * runs, found the way npm links it, so no code here knows where another package keeps its build.
 */
export function serviceBin(packageName: string): string {
  const manifestFile = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bin?: string | Record<string, string> };
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  if (bins.length !== 1)
    throw new Error(`${packageName} declares ${bins.length} bins in its package.json; one was expected`);
  const bin = join(dirname(manifestFile), bins[0] as string);
  if (!existsSync(bin))
    throw new Error(
      `${bin} (the bin of ${packageName}) is missing: run \`npm run build\` at the repository root first`,
    );
  return bin;
}
