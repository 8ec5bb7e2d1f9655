/**
 * How the replica tests and the replicas bench see publication on a shared database: read by `_id` from the
 * records resolution reads, never by polling resolution (on FerretDB each resolution reads whole collections,
 * and polling it starved the publishing it waited for; node README, replicas).
 */
import { createStoreProvider, queryAll, type StoreProvider } from '@anchor/common/storage';
import { metadataOf, postOperation, resolveDid, type TestDid } from './test-node.js';

/** One published operation of a DID as the operation store holds it. */
export interface Published {
  canonicalReference: string;
  transactionNumber: number;
}

/** Posts every create through `url`, `connections` at a time; `onDone` sees the count answered so far. The DIDs acknowledged (200). */
export async function createAll(
  url: string,
  dids: readonly TestDid[],
  connections: number,
  onDone?: (done: number) => Promise<void>,
): Promise<TestDid[]> {
  const acknowledged: TestDid[] = [];
  let next = 0;
  let done = 0;
  const refusals = new Map<string, number>();
  const refused = (why: string) => refusals.set(why, (refusals.get(why) ?? 0) + 1);
  const worker = async (): Promise<void> => {
    while (next < dids.length) {
      const did = dids[next++]!;
      const answer = await postOperation(url, did.created.request).catch((error: Error) => {
        refused(`no answer: ${String(error.cause ?? error.message)}`);
        return undefined;
      });
      if (answer?.status === 200) acknowledged.push(did);
      else if (answer) refused(`${answer.status} ${answer.text.slice(0, 120)}`);
      await onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  if (refusals.size > 0) console.info('[replicas] not acknowledged:', Object.fromEntries(refusals));
  return acknowledged;
}

/** DIDs looked up per read of the database while waiting. */
const LOOKUP_SLICE = 32;
/** DIDs resolved through the balancer once all are seen published: resolution agrees with the records. */
const RESOLVED_SAMPLE = 24;

/**
 * Waits until every DID's latest anchor is in the database or the deadline passes, reading the waiting ones
 * in acceptance order LOOKUP_SLICE at a time and going on only while a slice is all published (batches are
 * cut oldest first), so a wait costs one slice's reads per poll. Then each DID's published operations, from
 * one read of the operation store, and a sample resolved through the balancer.
 */
export async function published(databaseUrl: string, dids: readonly TestDid[], deadline: number) {
  const storage = await createStoreProvider({ type: 'mongodb', url: databaseUrl, sweepIntervalMs: 0 });
  try {
    const anchors = await storage.open<{ anchor: string }>('operation');
    let waiting = [...dids];
    while (waiting.length > 0 && Date.now() < deadline) {
      const slice = waiting.slice(0, LOOKUP_SLICE);
      const found = await anchors.getMany(slice.map((did) => did.suffix)).catch(() => slice.map(() => undefined));
      const seen = new Set(slice.filter((_, at) => found[at] !== undefined));
      waiting = waiting.filter((did) => !seen.has(did));
      if (seen.size < slice.length) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const doneAt = { date: Date.now(), performance: performance.now() };
    // The one read of the whole operation store; a 503 (past the adapter's deadline on a loaded machine) is asked again.
    let found: Map<string, Published[]> | undefined;
    for (let attempt = 1; found === undefined; attempt++)
      found = await publishedOperations(storage, dids).catch((error: unknown) => {
        if (attempt >= 5) throw error;
        return undefined;
      });
    return { found, unpublished: waiting.length, doneAt };
  } finally {
    await storage.close();
  }
}

/** Each DID's published operations as stored (`<suffix>:<anchor hash>` records), checked against resolution for a sample. */
async function publishedOperations(storage: StoreProvider, dids: readonly TestDid[]) {
  const suffixes = new Set(dids.map((did) => did.suffix));
  const found = new Map<string, Published[]>();
  const operations = await storage.open<Published & { suffix?: string }>('operation');
  for (const { key, value } of await queryAll(operations, { limit: 5_000 })) {
    const suffix = key.split(':')[0]!;
    if (!key.includes(':') || !suffixes.has(suffix)) continue;
    const { canonicalReference, transactionNumber } = value;
    found.set(suffix, [...(found.get(suffix) ?? []), { canonicalReference, transactionNumber }]);
  }
  return found;
}

/**
 * Resolves a sample of the DIDs through `url` (a 503 is asked again: a store call past its deadline under
 * load): how many resolve as published with the operations the store holds, and what the others answered.
 */
export async function checkResolution(
  url: string,
  dids: readonly TestDid[],
  found: Map<string, Published[]>,
  sampleSize = RESOLVED_SAMPLE,
) {
  const sample = dids.filter((_, at) => at % Math.max(1, Math.floor(dids.length / sampleSize)) === 0);
  const mismatches: string[] = [];
  for (const did of sample) {
    let answer = await resolveDid(url, did.did).catch(() => undefined);
    for (let attempt = 1; answer?.status !== 200 && attempt < 5; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      answer = await resolveDid(url, did.did).catch(() => undefined);
    }
    const method = answer?.status === 200 ? metadataOf(answer).method : undefined;
    const stored = found.get(did.suffix)?.length ?? 0;
    const served = (method?.publishedOperations as Published[] | undefined)?.length ?? 0;
    if (method?.published !== true || served !== stored)
      mismatches.push(
        `${did.suffix}: ${answer?.status ?? 'no answer'}, ${served} published operations, ${stored} stored`,
      );
  }
  return { resolved: sample.length - mismatches.length, mismatches };
}

/** DIDs whose create is in more than one anchor, plus anchors under more than one transaction number. */
export function publishedTwice(found: Map<string, Published[]>): number {
  let twice = [...found.values()].filter((operations) => operations.length > 1).length;
  const numbersOf = new Map<string, Set<number>>();
  for (const operations of found.values())
    for (const { canonicalReference, transactionNumber } of operations)
      numbersOf.set(canonicalReference, (numbersOf.get(canonicalReference) ?? new Set()).add(transactionNumber));
  twice += [...numbersOf.values()].filter((numbers) => numbers.size > 1).length;
  return twice;
}

/** Samples every replica's CPU time every 200 ms, so a replica killed mid-run still counts what it used. */
