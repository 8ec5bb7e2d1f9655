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
  describe: 'Issue a credential with an issuer profile of the vcs; prints the signed credential',
  positionals: { credential: { describe: 'JSON file of the unsigned credential' } },
  options: { profile: { type: 'string', demandOption: true, describe: 'The issuer profile' } },
  examples: [
    [
      'anchor vc issue vc.json --profile demo-issuer --vcs-url http://127.0.0.1:8072 > signed.json',
      'issue and keep it',
    ],
  ],
  async run(context) {
    const client = vcs(context);
    try {
      const signed = await client.issue(
        required(context.args['profile'], 'profile'),
        await readCredential(required(context.args['credential'], 'credential')),
      );
      // The signed credential is the result either way: scripts pipe it on.
      context.out.result(signed, () => JSON.stringify(signed, null, 2));
    } finally {
      client.close();
    }
  },
};

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
