import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { testStoreProvider } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'anchor-lmdb-contract-'));
const dirs = new WeakMap<StoreProvider, string>();
let n = 0;

function openAt(dir: string): StoreProvider {
  const provider = createLmdbStoreProvider({ dataDir: dir });
  dirs.set(provider, dir);
  return provider;
}

testStoreProvider('lmdb', {
  create: async () => openAt(join(root, `env-${n++}`)),
  reopen: async (closed) => openAt(dirs.get(closed)!),
  dispose: async () => rmSync(root, { recursive: true, force: true }),
});
