import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SignedTreeHead } from '@anchor/common/vct';
import { builtServiceMain, loopbackService, waitFor } from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { describe, expect, it } from 'vitest';
import { anchorCredential, call } from '../src/testing/index.js';

const main = builtServiceMain('vct-log');

/**
 * The restore drill of docs/operations.md: a log whose database is restored to a backup older than the
 * newest head it signed must not serve the smaller tree (every monitor that saw the larger head would call
 * it a rollback, orb issue 1316) unless the operator says so with --allow-tree-rollback.
 */
describe('vct-log restored from an older backup', () => {
  const { tempDir } = processTestScope();

  it('refuses to serve a tree smaller than a head it signed, and serves it when the operator allows it', async () => {
    const dir = await tempDir('vct-restore-');
    const backup = await tempDir('vct-backup-');
    const flags = ['--data-dir', dir.path, '--integration-interval', '50ms', '--canonicalize-workers', '1'];
    const log = await loopbackService(main, [...flags, '--log-level', 'warning']);
    const sth = async () => (await call<SignedTreeHead>(`${log.url}/main/v1/get-sth`)).body;
    const add = async (id: string) => {
      const reply = await call(`${log.url}/main/v1/add-vc`, { json: anchorCredential(id) });
      expect(reply.status, reply.text).toBe(200);
    };

    let service = await log.start();
    await add('restore-1');
    await waitFor(async () => (await sth()).tree_size === 1);
    await service.stop();
    // The backup: LMDB's data file as a stopped log left it; the high-water file is not part of it.
    await copyFile(join(dir.path, 'data.mdb'), join(backup.path, 'data.mdb'));

    service = await log.start();
    await add('restore-2');
    await add('restore-3');
    await waitFor(async () => (await sth()).tree_size === 3);
    const signed = await sth();
    await service.stop();

    await copyFile(join(backup.path, 'data.mdb'), join(dir.path, 'data.mdb'));
    await rm(join(dir.path, 'lock.mdb'), { force: true });
    await expect(log.start()).rejects.toThrow(
      /the database holds a tree of 1 entries, but this log already signed a tree head of 3 entries.*--allow-tree-rollback/s,
    );

    const allowed = await loopbackService(main, [...flags, '--allow-tree-rollback']);
    service = await allowed.start();
    const served = (await call<SignedTreeHead>(`${allowed.url}/main/v1/get-sth`)).body;
    expect(served.tree_size).toBe(1);
    expect(served.timestamp).toBeLessThan(signed.timestamp);
    expect(service.output()).toMatch(/serving a tree smaller than a head this log already signed/);
    await service.stop();

    // The operator's choice is remembered: the next start needs no flag, and the log grows from there.
    service = await log.start();
    await add('restore-4');
    await waitFor(async () => (await sth()).tree_size === 2);
    await service.stop();
  }, 120_000);
});
