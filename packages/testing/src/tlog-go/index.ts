/**
 * test/tlog-go, the Go client of the C2SP formats (golang.org/x/mod's sumdb/note and sumdb/tlog,
 * transparency-dev/formats' note), for the services' tests: built once per machine from the Go module proxy by
 * scripts/ensure-tlog-go-client.sh, asked one JSON request on stdin for one JSON answer on stdout.
 *
 *   const binary = await ensureTlogGoClient();            // in a beforeAll (a first build takes minutes)
 *   const answer = await askTlogGo<Answer>(binary, { cosigned: { note, logVerifierKey, witnessKeys } });
 */
import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// src/tlog-go and dist/tlog-go sit at the same depth below the repository root.
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ENSURE_SCRIPT = join(REPO_ROOT, 'scripts', 'ensure-tlog-go-client.sh');

/** The path of the built Go client (built now when this machine has none for these sources). */
export async function ensureTlogGoClient(): Promise<string> {
  return (await promisify(execFile)(ENSURE_SCRIPT, [], { maxBuffer: 1 << 20 })).stdout.trim();
}

/** One request to the Go client; its answer parsed, or its stderr as the error. */
export function askTlogGo<Answer>(binary: string, request: object): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(stdout) as Answer) : reject(new Error(`the Go client failed: ${stderr}`)),
    );
    child.stdin.end(JSON.stringify(request));
  });
}
