import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../process/index.js';

const GENERATE_AND_EXPORT = fileURLToPath(new URL('./generate-and-export.test-helpers.ts', import.meta.url));

describe('key generation in @anchor/common/crypto', () => {
  // On Node 20, node:crypto deadlocks when a JWK export runs while the garbage collector destroys a finished
  // generateKeyPairSync job (both take the key's mutex). With generateKeyPairSync this loop hung within a
  // few thousand keys; KeyPair.generate makes keys without such jobs.
  it('generates and exports 20,000 key pairs without hanging', async () => {
    const result = await runProcess(GENERATE_AND_EXPORT, { args: ['20000'], timeoutMs: 60_000 });
    expect(result.stdout.trim()).toBe('done 20000');
    expect(result.code).toBe(0);
  }, 90_000);
});
