import { readFile, writeFile } from 'node:fs/promises';
import { VctLogClient } from '@anchor/common/clients';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';
import type { SignedTreeHead } from '@anchor/common/vct';
import { required, type CommandContext, type CommandSpec } from '../command.js';
import { CliError } from '../errors.js';

function logClient({ args }: CommandContext): { client: VctLogClient; logUrl: string } {
  const logUrl = required(args.logUrl, 'log-url').replace(/\/+$/, '');
  // Anchor credentials carry terms no context defines; accepting them here changes nothing for others.
  const client = new VctLogClient({
    readToken: args.token,
    writeToken: args.token,
    allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
  });
  return { client, logUrl };
}

async function readJson<T>(path: string, what: string): Promise<T> {
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`${what} ${path} is not JSON`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sthLine(sth: SignedTreeHead): string {
  return `tree size ${sth.tree_size}, root ${sth.sha256_root_hash}, at ${new Date(sth.timestamp).toISOString()}`;
}

const add: CommandSpec = {
  name: 'vct add',
  describe: "Add a credential to the log; the log's signed promise is checked against its published key",
  positionals: { credential: { describe: 'JSON file of the credential (- for stdin)' } },
  examples: [
    [
      'anchor vct add vc.json --log-url http://127.0.0.1:8070/main --json > receipt.json',
      'log a credential, keep the receipt',
    ],
  ],
  async run(context) {
    const { client, logUrl } = logClient(context);
    const credential = await readJson<Record<string, unknown>>(
      required(context.args['credential'], 'credential'),
      'the credential',
    );
    const promise = await client.addCredential(logUrl, credential);
    const leafHash = (await client.leafHashOf(credential, promise.timestamp)).toString('base64');
    context.out.result({ ...promise, leafHash }, () =>
      [
        `logged at ${new Date(promise.timestamp).toISOString()} (timestamp ${promise.timestamp})`,
        `  log id     ${promise.id}`,
        `  leaf hash  ${leafHash}`,
      ].join('\n'),
    );
  },
};

const sth: CommandSpec = {
  name: 'vct sth',
  describe:
    "Fetch the log's signed tree head (signature checked); --save keeps it, --since checks consistency with a saved one",
  options: {
    save: { type: 'string', describe: 'Write the verified STH to this file' },
    since: { type: 'string', describe: 'A previously saved STH: prove the current tree extends it' },
  },
  examples: [
    ['anchor vct sth --log-url http://127.0.0.1:8070/main --save sth.json', 'fetch and keep the current STH'],
    ['anchor vct sth --log-url http://127.0.0.1:8070/main --since sth.json', 'check the log only appended since'],
  ],
  async run(context) {
    const { client, logUrl } = logClient(context);
    const current = await client.signedTreeHead(logUrl);
    let consistentWith: number | undefined;
    if (typeof context.args['since'] === 'string') {
      const saved = await readJson<SignedTreeHead>(context.args['since'], 'the saved STH');
      const problem = await client.sthProblem(logUrl, saved);
      if (problem !== undefined) throw new CliError(`the saved STH ${context.args['since']}: ${problem}`);
      await client.verifyConsistency(logUrl, saved, current);
      consistentWith = saved.tree_size;
    }
    if (typeof context.args['save'] === 'string')
      await writeFile(context.args['save'], `${JSON.stringify(current, null, 2)}\n`);
    context.out.result({ sth: current, ...(consistentWith === undefined ? {} : { consistentWith }) }, () =>
      [
        sthLine(current),
        ...(consistentWith === undefined ? [] : [`consistent with the saved tree of size ${consistentWith}`]),
      ].join('\n'),
    );
  },
};

const proof: CommandSpec = {
  name: 'vct proof',
  describe: "Prove a logged credential (or a leaf hash) is in the log's current tree, and verify the proof",
  options: {
    credential: { type: 'string', describe: 'JSON file of the credential that was logged' },
    timestamp: { type: 'number', describe: 'The timestamp of its receipt (vct add)' },
    'leaf-hash': { type: 'string', describe: 'The leaf hash (base64) instead of --credential and --timestamp' },
  },
  examples: [
    [
      'anchor vct proof --credential vc.json --timestamp 1732600000000 --log-url http://127.0.0.1:8070/main',
      'inclusion of a credential',
    ],
  ],
  async run(context) {
    const { client, logUrl } = logClient(context);
    const { args } = context;
    let hash: Buffer;
    if (typeof args['leafHash'] === 'string') hash = Buffer.from(args['leafHash'], 'base64');
    else if (typeof args['credential'] === 'string' && typeof args['timestamp'] === 'number')
      hash = await client.leafHashOf(await readJson(args['credential'], 'the credential'), args['timestamp']);
    else throw new CliError('give --leaf-hash, or --credential with --timestamp', 2);
    if (hash.length !== 32) throw new CliError('--leaf-hash must be 32 bytes in base64', 2);
    const head = await client.signedTreeHead(logUrl);
    const inclusion = await client.verifyInclusion(logUrl, hash, head);
    context.out.result(
      {
        leafIndex: inclusion.leafIndex,
        treeSize: inclusion.treeSize,
        leafHash: hash.toString('base64'),
        auditPath: inclusion.auditPath.map((h) => h.toString('base64')),
      },
      () =>
        `included: leaf ${inclusion.leafIndex} of the tree of size ${inclusion.treeSize} (proof of ${inclusion.auditPath.length} hashes verified)`,
    );
  },
};

const verify: CommandSpec = {
  name: 'vct verify',
  describe: "Verify a saved STH: its signature with the log's key, and that the log's current tree extends it",
  positionals: { sth: { describe: 'The saved STH file' } },
  examples: [
    [
      'anchor vct verify sth.json --log-url http://127.0.0.1:8070/main',
      'exit 1 if the STH is forged or the log forked',
    ],
  ],
  async run(context) {
    const { client, logUrl } = logClient(context);
    const file = required(context.args['sth'], 'sth');
    const saved = await readJson<SignedTreeHead>(file, 'the STH');
    const problem = await client.sthProblem(logUrl, saved);
    if (problem !== undefined) throw new CliError(`${file}: ${problem}`);
    const current = await client.signedTreeHead(logUrl);
    await client.verifyConsistency(logUrl, saved, current);
    context.out.result(
      { verified: true, saved: saved.tree_size, current: current.tree_size },
      () =>
        `${file}: signature verified; the current tree (size ${current.tree_size}) extends it (size ${saved.tree_size})`,
    );
  },
};

export const VCT_COMMANDS: CommandSpec[] = [add, sth, proof, verify];
