import { NodeAdminClient, type AcceptListType } from '@anchor/common/clients';
import { required, type CommandContext, type CommandSpec, type OptionSpec } from '../command.js';
import { CliError } from '../errors.js';

/** The node's administrator API through the common client, with the token from --token / env / config. */
export function nodeClient({ args }: CommandContext): NodeAdminClient {
  const url = required(args.nodeUrl, 'node-url');
  return new NodeAdminClient({ url, ...(args.token === undefined ? {} : { adminToken: args.token }) });
}

const services = { services: { describe: 'Service URIs (e.g. http://127.0.0.1:8082/services/node)', variadic: true } };
const service = { service: { describe: "The other service's URI, e.g. http://127.0.0.1:8082/services/node" } };
const waitOption: Record<string, OptionSpec> = {
  wait: { type: 'boolean', default: false, describe: 'Wait until the other service accepts (up to 60 s)' },
};
const typeOption: Record<string, OptionSpec> = {
  type: { type: 'string', choices: ['follow', 'invite-witness'], demandOption: true, describe: 'Which accept list' },
};

function activityCommand(
  name: string,
  describe: string,
  act: (client: NodeAdminClient, service: string) => Promise<string>,
  collection?: 'following' | 'witnesses',
): CommandSpec {
  return {
    name,
    describe,
    positionals: service,
    options: collection ? waitOption : {},
    examples: [[`anchor ${name} http://127.0.0.1:8082/services/node -n http://127.0.0.1:8081`, describe.toLowerCase()]],
    async run(context) {
      const client = nodeClient(context);
      const target = required(context.args['service'], 'service');
      const activity = await act(client, target);
      if (collection && context.args['wait']) {
        const progress = context.out.progress(`waiting for ${target} to accept`);
        try {
          await client.waitUntilIn(collection, target, 60_000);
        } catch (error) {
          progress.fail();
          throw new CliError((error as Error).message);
        }
        progress.done(`${target} is in ${collection}`);
      }
      context.out.result({ activity }, () => `posted ${activity}`);
    },
  };
}

function listCommand(name: string, describe: string, get: (client: NodeAdminClient) => Promise<unknown>): CommandSpec {
  return {
    name,
    describe,
    examples: [[`anchor ${name} -n http://127.0.0.1:8081`, describe.toLowerCase()]],
    async run(context) {
      const value = await get(nodeClient(context));
      context.out.result(value, () =>
        Array.isArray(value)
          ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n')
          : String(value ?? '(none)'),
      );
    },
  };
}

function acceptListChange(name: 'add' | 'remove'): CommandSpec {
  return {
    name: `acceptlist ${name}`,
    describe: `${name === 'add' ? 'Add services to' : 'Remove services from'} an accept list`,
    positionals: services,
    options: typeOption,
    examples: [
      [
        `anchor acceptlist ${name} --type follow http://127.0.0.1:8082/services/node -n http://127.0.0.1:8081`,
        `${name} a follower`,
      ],
    ],
    async run(context) {
      const client = nodeClient(context);
      const type = context.args['type'] as AcceptListType;
      const targets = (context.args['services'] as string[] | undefined) ?? [];
      const lists = name === 'add' ? await client.allow(type, targets) : await client.disallow(type, targets);
      context.out.result(lists, () =>
        lists.map((list) => `${list.type}: ${list.url.join(', ') || '(empty)'}`).join('\n'),
      );
    },
  };
}

function originsChange(name: 'add' | 'remove'): CommandSpec {
  return {
    name: `allowedorigins ${name}`,
    describe: `${name === 'add' ? 'Allow' : 'Stop allowing'} anchor origins`,
    positionals: { origins: { describe: 'Anchor origin URIs', variadic: true } },
    examples: [[`anchor allowedorigins ${name} http://127.0.0.1:8082 -n http://127.0.0.1:8081`, `${name} an origin`]],
    async run(context) {
      const origins = (context.args['origins'] as string[] | undefined) ?? [];
      const now = await nodeClient(context).updateAllowedOrigins({ [name]: origins });
      context.out.result(now, () => now.join('\n') || '(none)');
    },
  };
}

function settingCommands(
  noun: 'policy' | 'log',
  describe: string,
  get: (client: NodeAdminClient) => Promise<string | undefined>,
  set: (client: NodeAdminClient, value: string) => Promise<string | undefined>,
  example: string,
): CommandSpec[] {
  return [
    {
      name: `${noun} get`,
      describe: `Show the node's ${describe}`,
      examples: [[`anchor ${noun} get -n http://127.0.0.1:8081`, `show the ${describe}`]],
      async run(context) {
        const value = await get(nodeClient(context));
        context.out.result({ [noun]: value ?? null }, () => value ?? '(none)');
      },
    },
    {
      name: `${noun} set`,
      describe: `Set the node's ${describe}`,
      positionals: { value: { describe: `The new ${describe}` } },
      examples: [[`anchor ${noun} set '${example}' -n http://127.0.0.1:8081`, `set the ${describe}`]],
      async run(context) {
        const value = await set(nodeClient(context), required(context.args['value'], 'value'));
        context.out.result({ [noun]: value ?? null }, () => `${noun}: ${value ?? '(none)'}`);
      },
    },
  ];
}

const logMonitorGet: CommandSpec = {
  name: 'logmonitor get',
  describe: 'Show the transparency logs the node monitors (exit 1 when --status failed lists any)',
  options: {
    status: { type: 'string', choices: ['active', 'inactive', 'failed'], default: 'active', describe: 'Which logs' },
  },
  examples: [
    ['anchor logmonitor get --status failed -n http://127.0.0.1:8081', 'logs caught misbehaving, with evidence'],
  ],
  async run(context) {
    const status = String(context.args['status']) as 'active' | 'inactive' | 'failed';
    const logs = await nodeClient(context).logMonitors(status);
    context.out.result({ [status]: logs }, () =>
      logs.length === 0
        ? `no ${status} log`
        : logs
            .map(
              (log) =>
                `${String(log['Log'])}  tree size ${String((log['STH'] as { tree_size?: number } | undefined)?.tree_size ?? '-')}${log['LastError'] ? `  last error: ${String(log['LastError'])}` : ''}`,
            )
            .join('\n'),
    );
    return status === 'failed' && logs.length > 0 ? 1 : 0;
  },
};

function logMonitorChange(name: 'activate' | 'deactivate'): CommandSpec {
  return {
    name: `logmonitor ${name}`,
    describe: `${name === 'activate' ? 'Start' : 'Stop'} monitoring transparency logs`,
    positionals: { logs: { describe: 'Log alias URLs', variadic: true } },
    examples: [[`anchor logmonitor ${name} http://127.0.0.1:8070/main -n http://127.0.0.1:8081`, `${name} a log`]],
    async run(context) {
      const logs = ((context.args['logs'] as string[] | undefined) ?? []).map(String);
      await nodeClient(context).updateLogMonitors({ [name]: logs });
      context.out.result({ [name]: logs }, () => `${name}d: ${logs.join(', ')}`);
    },
  };
}

export const ADMIN_COMMANDS: CommandSpec[] = [
  activityCommand('follow', 'Follow another service (Follow to its inbox)', (c, s) => c.follow(s), 'following'),
  activityCommand('unfollow', 'Stop following a service (Undo of the Follow)', (c, s) => c.undo('Follow', s)),
  activityCommand(
    'witness invite',
    "Invite a service to witness this node's anchors",
    (c, s) => c.inviteWitness(s),
    'witnesses',
  ),
  activityCommand('witness uninvite', 'Withdraw a witness invitation (Undo of the Invite)', (c, s) =>
    c.undo('Invite', s),
  ),
  listCommand('acceptlist get', 'Show the accept lists', (c) => c.acceptLists()),
  acceptListChange('add'),
  acceptListChange('remove'),
  listCommand('allowedorigins get', 'Show the allowed anchor origins', (c) => c.allowedOrigins()),
  originsChange('add'),
  originsChange('remove'),
  ...settingCommands(
    'policy',
    'witness policy',
    (c) => c.witnessPolicy(),
    (c, v) => c.setWitnessPolicy(v),
    'MinPercent(100,batch) AND MinPercent(50,system)',
  ),
  ...settingCommands(
    'log',
    'transparency log URL',
    (c) => c.log(),
    (c, v) => c.setLog(v),
    'http://127.0.0.1:8070/main',
  ),
  logMonitorGet,
  logMonitorChange('activate'),
  logMonitorChange('deactivate'),
];
