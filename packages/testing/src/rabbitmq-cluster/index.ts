/**
 * A private RabbitMQ cluster for fault tests: `size` members (RabbitMqNode: own node name, AMQP and
 * distribution ports on 127.0.0.1, data and log directories under `dir`, no plugins) sharing one Erlang
 * cookie, joined to the first with `rabbitmqctl join_cluster`. The machine's shared broker on 5672 is not
 * touched. Needs Debian's rabbitmq-server (`rabbitmqNodeUnavailable` says why not).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { RabbitMqNode } from '../rabbitmq-node/index.js';

export { rabbitmqNodeUnavailable } from '../rabbitmq-node/index.js';

export class RabbitMqCluster {
  private constructor(readonly members: readonly RabbitMqNode[]) {}

  /**
   * Starts the members (at once: boots overlap) and joins every other one to the first. `advancedConfig`
   * (Erlang terms) goes to every member.
   */
  static async start(dir: string, size = 3, advancedConfig?: string): Promise<RabbitMqCluster> {
    const cookie = randomBytes(20).toString('hex').toUpperCase();
    const started = await Promise.allSettled(
      Array.from({ length: size }, (_, i) =>
        RabbitMqNode.start(join(dir, `member-${i + 1}`), {
          cookie,
          name: `rabbit-t${i + 1}`,
          ...(advancedConfig !== undefined ? { advancedConfig } : {}),
        }),
      ),
    );
    const members = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const cluster = new RabbitMqCluster(members);
    const failure = started.find((r) => r.status === 'rejected');
    if (failure) {
      await cluster.stop();
      throw failure.reason;
    }
    try {
      const first = members[0]!;
      for (const member of members.slice(1)) {
        await member.ctl(['stop_app']);
        await member.ctl(['join_cluster', first.nodeName]);
        await member.ctl(['start_app']);
        await member.accepting();
      }
      const status = await first.ctl(['cluster_status', '--formatter', 'json']);
      const running = (JSON.parse(status) as { running_nodes?: string[] }).running_nodes ?? [];
      if (running.length !== size)
        throw new Error(`the cluster runs ${running.length} of ${size} members: ${running.join(', ')}`);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The members' AMQP URLs, comma-separated in member order (an --mq-url value). */
  get urls(): string {
    return this.members.map((m) => m.url).join(',');
  }

  /** rabbitmqctl on the first member still running. */
  ctl(args: readonly string[]): Promise<string> {
    const member = this.members.find((m) => m.running);
    if (!member) return Promise.reject(new Error('no member of the cluster is running'));
    return member.ctl(args);
  }

  /** kill -9 of every member still running (their data is a test's temp dir). */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.kill()));
  }
}
