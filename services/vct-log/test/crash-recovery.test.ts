import { verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import { parseLeafInput, type AddVcResponse, type SignedTreeHead } from '@anchor/common/vct';
import { builtServiceMain, loopbackService, waitFor } from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { describe, expect, it } from 'vitest';
import {
  addVcSignatureVerifies,
  anchorCredential,
  call,
  leafHashFor,
  sthSignatureVerifies,
} from '../src/testing/index.js';

const main = builtServiceMain('vct-log');

/**
 * SIGKILL under load: clients keep submitting distinct credentials (some of them twice) while the log
 * integrates every 50 ms; the process is killed without warning. After a restart, every acknowledged entry
 * is in the log exactly once at its acknowledged timestamp, and the new head is consistent with every
 * head a client saw before the crash.
 */
describe('vct-log killed under load', () => {
  const { tempDir } = processTestScope();

  it('loses no acknowledged entry, logs none twice, and its next head is consistent with the last one', async () => {
    const dir = await tempDir('vct-crash-');
    const { url, start } = await loopbackService(main, [
      '--data-dir',
      dir.path,
      '--integration-interval',
      '50ms',
      '--canonicalize-workers',
      '1',
      '--log-level',
      'warning',
    ]);
    let service = await start();
    const publicKey = Buffer.from(
      (
        await call<{ properties: Record<string, string> }>(
          `${url}/.well-known/webfinger?resource=${encodeURIComponent(`${url}/main`)}`,
        )
      ).body.properties['https://trustbloc.dev/ns/public-key']!,
      'base64',
    );

    const acknowledged = new Map<string, { credential: Record<string, unknown>; timestamp: number }>();
    const seenHeads: SignedTreeHead[] = [];
    let next = 0;
    let killed = false;
    const submitter = async (): Promise<void> => {
      while (!killed) {
        const n = next++;
        // Every fifth credential is a resubmission of an earlier one.
        const id = n % 5 === 4 ? `crash-${n - 2}` : `crash-${n}`;
        const credential = anchorCredential(id);
        try {
          const reply = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: credential });
          if (reply.status !== 200) throw new Error(`add-vc answered ${reply.status}: ${reply.text}`);
          const known = acknowledged.get(id);
          if (known) expect(reply.body.timestamp).toBe(known.timestamp);
          acknowledged.set(id, { credential, timestamp: reply.body.timestamp });
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    const watcher = async (): Promise<void> => {
      while (!killed) {
        try {
          const reply = await call<SignedTreeHead>(`${url}/main/v1/get-sth`);
          if (reply.status === 200 && !killed) seenHeads.push(reply.body);
        } catch {
          // the process is gone
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const load = Promise.all([...Array.from({ length: 16 }, submitter), watcher()]);
    await waitFor(() => acknowledged.size >= 600 && (seenHeads.at(-1)?.tree_size ?? 0) > 100, {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    killed = true;
    await service.kill();
    await load;
    const lastHead = seenHeads.at(-1)!;
    expect(sthSignatureVerifies(lastHead, publicKey)).toBe(true);

    service = await start();
    // Entries accepted but not yet integrated when the process died are integrated after the restart.
    const head = await waitFor(
      async () => {
        const reply = await call<SignedTreeHead>(`${url}/main/v1/get-sth`);
        return reply.body.tree_size >= acknowledged.size ? reply.body : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(sthSignatureVerifies(head, publicKey)).toBe(true);
    const root = Buffer.from(head.sha256_root_hash, 'base64');

    for (const seen of [seenHeads[0]!, seenHeads[Math.floor(seenHeads.length / 2)]!, lastHead]) {
      if (seen.tree_size === 0) continue;
      const reply = await call<{ consistency: string[] | null }>(
        `${url}/main/v1/get-sth-consistency?first=${seen.tree_size}&second=${head.tree_size}`,
      );
      const proof = (reply.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
      expect(
        verifyConsistency(seen.tree_size, head.tree_size, Buffer.from(seen.sha256_root_hash, 'base64'), root, proof),
      ).toBe(true);
    }

    const vcEntries = new Set<string>();
    for (let start = 0; start < head.tree_size; start += 1000) {
      const page = await call<{ entries: Array<{ leaf_input: string }> }>(
        `${url}/main/v1/get-entries?start=${start}&end=${head.tree_size - 1}`,
      );
      for (const entry of page.body.entries)
        vcEntries.add(parseLeafInput(Buffer.from(entry.leaf_input, 'base64').toString()).timestamped_entry.vc_entry);
    }
    expect(vcEntries.size).toBe(head.tree_size);

    for (const { credential, timestamp } of acknowledged.values()) {
      const hash = await leafHashFor(credential, timestamp);
      const reply = await call<{ leaf_index: number; audit_path: string[] | null }>(
        `${url}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash.toString('base64'))}&tree_size=${head.tree_size}`,
      );
      expect(reply.status).toBe(200);
      const path = (reply.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
      expect(verifyInclusion(reply.body.leaf_index, head.tree_size, hash, path, root)).toBe(true);
    }
    // A resubmission after the restart still gets the acknowledged timestamp.
    const [id, first] = [...acknowledged.entries()][0]!;
    const again = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: anchorCredential(id) });
    expect(again.body.timestamp).toBe(first.timestamp);
    expect(await addVcSignatureVerifies(again.body, first.credential, publicKey)).toBe(true);
    await service.stop();
  }, 120_000);
});
