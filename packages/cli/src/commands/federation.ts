import { NodeAdminClient, VctLogClient } from '@anchor/common/clients';
import { errorMessage } from '@anchor/common/errors';
import type { CommandSpec } from '../command.js';
import { CliError } from '../errors.js';
import { table } from '../output.js';

interface NodeStatus {
  node: string;
  healthy: boolean;
  problem?: string;
  followers?: number;
  following?: number;
  witnesses?: number;
  witnessing?: number;
  log?: string | null;
}

async function statusOf(url: string, token: string | undefined): Promise<NodeStatus> {
  const client = new NodeAdminClient({ url, timeoutMs: 5_000, ...(token === undefined ? {} : { adminToken: token }) });
  try {
    const health = await client.health();
    if (!health.healthy) return { node: url, healthy: false, problem: health.problem ?? `status ${health.status}` };
    const [followers, following, witnesses, witnessing, log] = await Promise.all([
      client.collection('followers'),
      client.collection('following'),
      client.collection('witnesses'),
      client.collection('witnessing'),
      client.log(),
    ]);
    return {
      node: url,
      healthy: true,
      followers: followers.length,
      following: following.length,
      witnesses: witnesses.length,
      witnessing: witnessing.length,
      log: log ?? null,
    };
  } catch (error) {
    return { node: url, healthy: false, problem: errorMessage(error) };
  } finally {
    client.close();
  }
}

const status: CommandSpec = {
  name: 'federation status',
  describe: "One table of the federation: each node's health and relationships, and the log's tree size",
  options: {
    nodes: { type: 'array', describe: 'Node base URLs (default: --node-url)' },
  },
  examples: [
    [
      'anchor federation status --nodes http://127.0.0.1:8081 http://127.0.0.1:8082 --log-url http://127.0.0.1:8070/main',
      'the local federation',
    ],
  ],
  async run({ args, out }) {
    const nodes = ((args['nodes'] as string[] | undefined) ?? (args.nodeUrl ? [args.nodeUrl] : [])).map(String);
    if (nodes.length === 0) throw new CliError('give --nodes (or --node-url)', 2);
    const statuses = await Promise.all(nodes.map((url) => statusOf(url, args.token)));
    let log: { url: string; treeSize?: number; problem?: string } | undefined;
    if (args.logUrl) {
      const client = new VctLogClient({ readToken: args.token });
      try {
        log = { url: args.logUrl, treeSize: (await client.signedTreeHead(args.logUrl)).tree_size };
      } catch (error) {
        log = { url: args.logUrl, problem: errorMessage(error) };
      }
    }
    out.result({ nodes: statuses, ...(log ? { log } : {}) }, () => {
      const rows = statuses.map((s) => [
        s.node,
        s.healthy ? out.paint('healthy', 'green') : out.paint('unhealthy', 'red'),
        ...(s.healthy
          ? [String(s.followers), String(s.following), String(s.witnesses), String(s.witnessing), s.log ?? '-']
          : [s.problem ?? '', '', '', '', '']),
      ]);
      const lines = [table(out, ['node', 'health', 'followers', 'following', 'witnesses', 'witnessing', 'log'], rows)];
      if (log)
        lines.push(
          '',
          log.problem
            ? `log ${log.url}: ${out.paint(log.problem, 'red')}`
            : `log ${log.url}: tree size ${log.treeSize} (STH signature verified)`,
        );
      return lines.join('\n');
    });
    return statuses.some((s) => !s.healthy) || log?.problem !== undefined ? 1 : 0;
  },
};

export const FEDERATION_COMMANDS: CommandSpec[] = [status];
