import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundledContext, bundledContextUrls } from '../contexts.js';
import type { ControllerDocument } from '../verification-method.js';

/** One request to the Digital Bazaar oracle process (see digitalbazaar-oracle.mjs). */
export type OracleTask =
  | { op: 'canonize'; document: unknown }
  | {
      op: 'sign';
      suite: '2020' | '2018';
      document: unknown;
      seedHex: string;
      keyId: string;
      controller: string;
      domain?: string;
      created?: string;
      credential?: boolean;
    }
  | {
      op: 'sign';
      suite: 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019';
      document: unknown;
      /** The private key, as a JWK. */
      jwk: object;
      keyId: string;
      controller: string;
      created?: string;
      credential?: boolean;
    }
  | {
      op: 'verify';
      suite: '2020' | '2018' | 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019';
      document: unknown;
      credential?: boolean;
    };

export type OracleResult = { ok: true; value: unknown } | { ok: false; error: string };

const ORACLE = fileURLToPath(new URL('./digitalbazaar-oracle.mjs', import.meta.url));

/** The bundled contexts, served to the oracle under every URL the tests use: the very same data. */
function bundledContextMap(extra: Record<string, unknown>): Record<string, unknown> {
  const contexts: Record<string, unknown> = { ...extra };
  for (const url of bundledContextUrls()) contexts[url] = bundledContext(url)?.document;
  return contexts;
}

/** Runs the tasks in one oracle process (its start-up dominates, so tests batch their tasks). */
export function runOracle(
  tasks: OracleTask[],
  controllers: ControllerDocument[] = [],
  extraContexts: Record<string, unknown> = {},
): Promise<OracleResult[]> {
  const input = JSON.stringify({ contexts: bundledContextMap(extraContexts), controllers, tasks });
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [ORACLE],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`oracle failed: ${error.message}\n${stderr}`));
        resolve((JSON.parse(stdout) as { results: OracleResult[] }).results);
      },
    );
    child.stdin?.end(input);
  });
}

export function oracleValue(result: OracleResult | undefined): unknown {
  if (!result) throw new Error('oracle returned no result');
  if (!result.ok) throw new Error(`oracle task failed: ${result.error}`);
  return result.value;
}
