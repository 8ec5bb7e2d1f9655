/**
 * The project's install scripts for the peers (scripts/ensure-*.sh), run from the bench: each prints what it
 * made available (a directory or a binary) on its last line, or fails with its reason, which the bench then
 * reports as the pair's `skipped`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** bench/peers: the peers' npm project, their programs and the Tessera front's source. */
export const PEERS_DIR = fileURLToPath(new URL('../../peers/', import.meta.url));

export function ensure(script: string): string {
  const run = spawnSync('bash', [`${REPO_ROOT}scripts/${script}`], {
    encoding: 'utf8',
    timeout: 15 * 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || last === '')
    throw new Error(`scripts/${script} failed (${run.status ?? run.signal}): ${run.stderr.trim().split('\n').at(-1)}`);
  if (run.stderr.trim() !== '') process.stdout.write(run.stderr.replace(/^/gm, `  ${script}: `));
  return last;
}
