import { readFile } from 'node:fs/promises';
import { VcsClient } from '@anchor/common/clients';
import { required, type CommandContext, type CommandSpec } from '../command.js';
import { CliError } from '../errors.js';

function vcs({ args }: CommandContext): VcsClient {
  return new VcsClient({
    url: required(args['vcsUrl'], 'vcs-url'),
    ...(args.token === undefined ? {} : { token: args.token }),
  });
}

async function readCredential(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CliError(`${path} is not JSON`);
  }
}

const issue: CommandSpec = {
  name: 'vc issue',
  describe:
    "Issue a credential with an issuer profile of the vcs; prints the signed credential (and the log's receipt on stderr)",
  positionals: { credential: { describe: 'JSON file of the unsigned credential' } },
  options: {
    profile: { type: 'string', demandOption: true, describe: 'The issuer profile' },
    'wait-logged': {
      type: 'boolean',
      default: false,
      describe: "Wait until the vcs proves the credential is in the transparency log (needs the vcs's --vct-url)",
    },
    timeout: { type: 'number', default: 60, describe: 'Seconds --wait-logged waits before giving up' },
  },
  examples: [
    [
      'anchor vc issue vc.json --profile demo-issuer --vcs-url http://127.0.0.1:8072 > signed.json',
      'issue and keep it (the receipt is printed on stderr)',
    ],
    [
      'anchor vc issue vc.json --profile demo-issuer --vcs-url http://127.0.0.1:8072 --wait-logged --json',
      '{"credential", "receipt", "logged"} once the log has it',
    ],
  ],
  async run(context) {
    const { args, out } = context;
    const client = vcs(context);
    try {
      const { credential, receipt } = await client.issueWithReceipt(
        required(args['profile'], 'profile'),
        await readCredential(required(args['credential'], 'credential')),
      );
      let logged: boolean | undefined;
      if (args['waitLogged']) {
        if (receipt === undefined)
          throw new CliError('the vcs answered no log receipt (it runs without --vct-url): nothing to wait for');
        await waitLogged(context, client, credential, receipt.timestamp);
        logged = true;
      }
      if (!out.json && receipt !== undefined)
        out.note(
          `log receipt: timestamp ${receipt.timestamp} (${new Date(receipt.timestamp).toISOString()}), id ${receipt.id}` +
            (logged ? ', in the log' : ''),
        );
      // Text: the signed credential alone on stdout, so a script pipes it on; --json: all of it.
      out.result({ credential, ...(receipt ? { receipt } : {}), ...(logged ? { logged } : {}) }, () =>
        JSON.stringify(credential, null, 2),
      );
    } finally {
      client.close();
    }
  },
};

/** Asks the vcs's `logged` check until it passes (the log merges on its interval) or --timeout passes. */
async function waitLogged(
  { args, out }: CommandContext,
  client: VcsClient,
  credential: Record<string, unknown>,
  timestamp: number,
): Promise<void> {
  const progress = out.progress('waiting until the transparency log has the credential');
  const deadline = Date.now() + Number(args['timeout'] ?? 60) * 1000;
  for (;;) {
    const result = await client.verify(credential, ['logged'], { vctTimestamp: timestamp });
    if (result.verified) {
      progress.done('in the log');
      return;
    }
    if (Date.now() > deadline) {
      progress.fail();
      throw new CliError(`not in the log after ${args['timeout']} s: ${JSON.stringify(result.failures)}`);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

const verify: CommandSpec = {
  name: 'vc verify',
  describe: 'Verify a credential with the vcs (proof and status by default); exit 1 when a check fails',
  positionals: { credential: { describe: 'JSON file of the signed credential' } },
  options: { checks: { type: 'array', default: 'proof,status', describe: 'Checks to run (proof, status, logged)' } },
  examples: [['anchor vc verify signed.json --vcs-url http://127.0.0.1:8072', 'proof and status']],
  async run(context) {
    const client = vcs(context);
    try {
      const raw = context.args['checks'];
      const checks = (Array.isArray(raw) ? raw : [raw]).flatMap((item) => String(item).split(',')).filter(Boolean);
      const result = await client.verify(
        await readCredential(required(context.args['credential'], 'credential')),
        checks,
      );
      context.out.result(result, () =>
        result.verified ? `verified (${checks.join(', ')})` : `NOT verified: ${JSON.stringify(result.failures)}`,
      );
      return result.verified ? 0 : 1;
    } finally {
      client.close();
    }
  },
};

const status: CommandSpec = {
  name: 'vc revoke',
  describe: 'Revoke a credential a profile issued (durable once this returns)',
  positionals: { id: { describe: 'The credential id' } },
  options: { profile: { type: 'string', demandOption: true, describe: 'The issuer profile that issued it' } },
  examples: [['anchor vc revoke urn:uuid:1 --profile demo-issuer --vcs-url http://127.0.0.1:8072', 'revoke it']],
  async run(context) {
    const client = vcs(context);
    try {
      const id = required(context.args['id'], 'id');
      await client.updateStatus(required(context.args['profile'], 'profile'), id, true);
      context.out.result({ revoked: id }, () => `${id}: revoked`);
    } finally {
      client.close();
    }
  },
};

export const VC_COMMANDS: CommandSpec[] = [issue, verify, status];
