import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every test run of a workspace gets a temp root of its own, removed when the run ends. Test workers and
 * the processes tests start inherit it as TMPDIR, so whatever they leave in the OS temp dir (a test file
 * killed mid-way, a node process's data directory, a worker whose exit hook never ran because the pool
 * killed it) goes with it. Without this, each CI run left about 60 directories (18 MB) in /tmp.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'anchor-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (error) {
      // A tmpfs a killed disk-full test left mounted under the root: say so rather than fail a green run.
      process.stderr.write(`test temp root ${root} not fully removed: ${(error as Error).message}\n`);
    }
  };
}
