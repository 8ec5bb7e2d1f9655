import type { NodeAdminClient, ServiceCollection } from '@anchor/common/clients';

export interface WiringOptions {
  /** The log alias URL every node uses as its local witness. */
  logUrl: string;
  /** A witness policy for every node; undefined leaves each node's own (default: 100% batch and system). */
  witnessPolicy?: string;
  /** How long Accepts may take to arrive. Default 60 s. */
  acceptTimeoutMs?: number;
  /** Told each change actually made (nothing is said for what was already in place). */
  onChange?: (change: string) => void;
}

/**
 * Makes every node follow every other and invite it as a witness, through the nodes' own APIs: each node
 * accept-lists the others for both, uses the log, and posts Follow / Invite only for relationships not yet
 * in its `following` / `witnesses`, then waits for the Accepts. Safe to run again on every start: what is in
 * place is left alone, so a restart neither duplicates activities nor fails.
 */
export async function wireFederation(nodes: readonly NodeAdminClient[], options: WiringOptions): Promise<void> {
  const say = options.onChange ?? (() => undefined);
  const ids = await Promise.all(nodes.map((node) => node.serviceId()));
  const others = (index: number): string[] => ids.filter((_, j) => j !== index);

  // Accept lists first: a Follow arriving before its sender is listed would be Rejected.
  await Promise.all(
    nodes.map(async (node, i) => {
      const lists = await node.acceptLists();
      const missing = (type: 'follow' | 'invite-witness') =>
        others(i).filter((id) => !lists.find((list) => list.type === type)?.url.includes(id));
      const follow = missing('follow');
      const invite = missing('invite-witness');
      if (follow.length === 0 && invite.length === 0) return;
      await node.updateAcceptLists([
        { type: 'follow', add: follow },
        { type: 'invite-witness', add: invite },
      ]);
      say(`${node.url}: accept list now admits ${[...new Set([...follow, ...invite])].join(', ')}`);
    }),
  );

  await Promise.all(
    nodes.map(async (node) => {
      if ((await node.log()) !== options.logUrl) {
        await node.setLog(options.logUrl);
        say(`${node.url}: uses the log ${options.logUrl}`);
      }
      if (
        options.witnessPolicy !== undefined &&
        (await node.witnessPolicy()) !== normalisePolicy(options.witnessPolicy)
      ) {
        await node.setWitnessPolicy(options.witnessPolicy);
        say(`${node.url}: witness policy ${options.witnessPolicy}`);
      }
    }),
  );

  const awaited: Array<{ node: NodeAdminClient; collection: ServiceCollection; peer: string }> = [];
  await Promise.all(
    nodes.map(async (node, i) => {
      const [following, witnesses] = await Promise.all([node.collection('following'), node.collection('witnesses')]);
      for (const peer of others(i)) {
        if (!following.includes(peer)) {
          await node.follow(peer);
          awaited.push({ node, collection: 'following', peer });
          say(`${node.url}: Follow ${peer}`);
        }
        if (!witnesses.includes(peer)) {
          await node.inviteWitness(peer);
          awaited.push({ node, collection: 'witnesses', peer });
          say(`${node.url}: Invite ${peer} to witness`);
        }
      }
    }),
  );
  await Promise.all(
    awaited.map(({ node, collection, peer }) => node.waitUntilIn(collection, peer, options.acceptTimeoutMs ?? 60_000)),
  );
}

/** The policy as the node stores it (whitespace collapsed), to tell whether it is already set. */
function normalisePolicy(policy: string): string {
  return policy.trim().split(/\s+/).join(' ');
}
