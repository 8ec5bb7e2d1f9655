import { KmsClient } from '@anchor/common/clients';
import { KeyPair, type Jwk } from '@anchor/common/crypto';
import { isRetryable } from '@anchor/common/errors';
import { createHttpClient, peerStatusOf } from '@anchor/common/http-client';
import {
  addPublicKeys,
  addServices,
  createRequest,
  deactivateRequest,
  documentKey,
  recoverRequest,
  removePublicKeys,
  removeServices,
  serializeRequest,
  service,
  updateRequest,
  type OperationRequest,
  type Patch,
} from '@anchor/sidetree';
import { unlink } from 'node:fs/promises';
import { required, type CommandContext, type CommandSpec, type OptionSpec } from '../command.js';
import { CliError, describeFailure, neverReached } from '../errors.js';
import { keyForCommitment, readKeyFile, readPendingCreate, writeKeyFile, type DidKeys } from '../key-file.js';
import { parseDidUrl, type Versions } from './did-url.js';

const OPERATIONS = '/sidetree/v1/operations';
const IDENTIFIERS = '/sidetree/v1/identifiers';
const DOCUMENT_PURPOSES = ['authentication', 'assertionMethod'] as const;

interface Resolution {
  didDocument?: Record<string, unknown>;
  didDocumentMetadata?: {
    canonicalId?: string;
    deactivated?: boolean;
    method?: {
      published?: boolean;
      updateCommitment?: string;
      recoveryCommitment?: string;
      publishedOperations?: Array<{ type: string }>;
    };
  };
}

const keyFileOption: OptionSpec = {
  type: 'string',
  alias: 'k',
  demandOption: true,
  describe: 'File with the keys that control the DID (written by did create, mode 0600)',
};
const waitOptions: Record<string, OptionSpec> = {
  wait: { type: 'boolean', default: false, describe: 'Wait until the node resolves the operation as published' },
  timeout: { type: 'number', default: 120, describe: 'Seconds --wait waits before giving up' },
};
const serviceOption: OptionSpec = {
  type: 'array',
  describe: 'A service to add, as id,type,endpoint (repeatable)',
};

async function resolve(nodeUrl: string, did: string, versions: Versions = {}): Promise<Resolution> {
  const http = createHttpClient({ timeoutMs: 10_000 });
  const query = new URLSearchParams(
    Object.entries(versions).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  try {
    // A deactivated DID is answered 410 with its resolution (deactivated: true): an answer, not a failure.
    return (
      await http.request<Resolution>(`${nodeUrl}${IDENTIFIERS}/${encodeURIComponent(did)}${query ? `?${query}` : ''}`, {
        method: 'GET',
        answerStatuses: [410],
      })
    ).data;
  } finally {
    http.close();
  }
}

async function post(nodeUrl: string, request: OperationRequest | Record<string, unknown>): Promise<void> {
  const http = createHttpClient({ timeoutMs: 20_000 });
  try {
    await http.request(`${nodeUrl}${OPERATIONS}`, {
      method: 'POST',
      body: serializeRequest(request as OperationRequest),
      headers: { 'content-type': 'application/json' },
    });
  } finally {
    http.close();
  }
}

/** Polls until the node resolves `did` published with `lastOperation` as its latest published operation. */
async function waitPublished(
  context: CommandContext,
  nodeUrl: string,
  did: string,
  lastOperation: string,
): Promise<Resolution> {
  const { out, args } = context;
  const progress = out.progress(`waiting until ${nodeUrl} resolves the ${lastOperation} as published`);
  const deadline = Date.now() + Number(args['timeout'] ?? 120) * 1000;
  for (;;) {
    const resolution = await resolve(nodeUrl, did).catch((error: unknown) => {
      if (isRetryable(error) || peerStatusOf(error) === 404 || peerStatusOf(error) === 410) return undefined;
      throw error;
    });
    const method = resolution?.didDocumentMetadata?.method;
    const deactivated = resolution?.didDocumentMetadata?.deactivated === true;
    const last = method?.publishedOperations?.at(-1)?.type;
    if (method?.published === true && (lastOperation === 'deactivate' ? deactivated : last === lastOperation)) {
      progress.done(`published: ${resolution?.didDocumentMetadata?.canonicalId ?? did}`);
      return resolution!;
    }
    if (Date.now() > deadline) {
      progress.fail();
      throw new CliError(`${did}: the ${lastOperation} is not published on ${nodeUrl} after ${args['timeout']} s`);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

function parseServices(values: unknown): Patch[] {
  if (values === undefined) return [];
  const entries = (Array.isArray(values) ? values : [values]).map((value) => {
    const [id, type, ...endpoint] = String(value).split(',');
    if (!id || !type || endpoint.length === 0)
      throw new CliError(`--add-service ${String(value)}: write it as id,type,endpoint`, 2);
    return service(id, type, endpoint.join(','));
  });
  return entries.length === 0 ? [] : [addServices(...entries)];
}

function list(values: unknown): string[] {
  if (values === undefined) return [];
  return (Array.isArray(values) ? values : [values]).map(String);
}

const privateJwk = (key: KeyPair): Jwk => key.privateJwk();

async function currentState(
  context: CommandContext,
  keys: DidKeys,
): Promise<{ nodeUrl: string; resolution: Resolution }> {
  if (keys.pending?.create !== undefined)
    throw new CliError(
      `no node has confirmed the create of ${keys.did}: run anchor did create with the same --key-file to send it again`,
    );
  const nodeUrl = (context.args.nodeUrl as string | undefined) ?? keys.nodeUrl;
  const resolution = await resolve(nodeUrl, keys.did);
  if (resolution.didDocumentMetadata?.deactivated === true) throw new CliError(`${keys.did} is deactivated`);
  return { nodeUrl, resolution };
}

/**
 * The DID's document key: generated here (its private JWK goes to the key file), or with --kms-url and
 * --keystore created in the kms, whose private half never leaves it (the key file records where it is).
 * The update and recovery keys stay in the key file: they sign Sidetree operations, which are built here.
 */
async function documentSigningKey(context: CommandContext): Promise<{ key: KeyPair; record: Jwk }> {
  const { args } = context;
  if (typeof args['kmsUrl'] !== 'string') {
    const key = KeyPair.generate('Ed25519');
    return { key, record: key.privateJwk() };
  }
  const keystoreId = required(args['keystore'], 'keystore');
  const kms = new KmsClient({ url: args['kmsUrl'] });
  try {
    const keystore = kms.keystore(keystoreId, { capability: required(args['capability'], 'capability') });
    const created = await keystore.createKey('ED25519', { export: true });
    const publicKey = created.publicKey ?? (await keystore.exportPublicKey(created.keyId)).publicKey;
    const key = KeyPair.fromPublicKeyBytes('Ed25519', publicKey);
    return { key, record: { ...key.publicJwk(), kid: keystore.keyUrl(created.keyId) } };
  } finally {
    kms.close();
  }
}

const create: CommandSpec = {
  name: 'did create',
  describe: 'Create a did:node DID with a fresh Ed25519 document key; its keys go to --key-file',
  options: {
    'key-file': { ...keyFileOption, describe: "Where to write the new DID's keys (must not exist; mode 0600)" },
    'add-service': serviceOption,
    'anchor-origin': { type: 'string', describe: 'Anchor origin of the DID (default: the node URL)' },
    keystore: {
      type: 'string',
      describe: 'With --kms-url: create the document key in this kms keystore (its private half never leaves the kms)',
    },
    capability: { type: 'string', describe: "The keystore's capability token (env ANCHOR_CLI_CAPABILITY)" },
    ...waitOptions,
  },
  examples: [
    [
      'anchor did create -n http://127.0.0.1:8081 -k alice.json --wait',
      'create a DID on node1 and wait until it is published',
    ],
    [
      'anchor did create -n http://127.0.0.1:8081 -k bob.json --add-service hub,LinkedDomains,https://bob.example',
      'with a service',
    ],
  ],
  async run(context) {
    const { args, out } = context;
    const nodeUrl = required(args.nodeUrl, 'node-url');
    const keyFile = required(args['keyFile'], 'key-file');
    const resumed = await readPendingCreate(keyFile);
    let keys: DidKeys;
    let longFormDid: string | undefined;
    if (resumed) {
      out.note(`${keyFile} holds a create no node has confirmed yet: sending it again`);
      keys = resumed;
    } else {
      const { key: signingKey, record: signingRecord } = await documentSigningKey(context);
      const updateKey = KeyPair.generate('Ed25519');
      const recoveryKey = KeyPair.generate('Ed25519');
      const built = createRequest({
        recoveryKey,
        updateKey,
        anchorOrigin: (args['anchorOrigin'] as string | undefined) ?? nodeUrl,
        patches: [
          addPublicKeys(documentKey('key-1', signingKey, { purposes: [...DOCUMENT_PURPOSES] })),
          ...parseServices(args['addService']),
        ],
      });
      longFormDid = built.longFormDid;
      keys = {
        did: built.did,
        didSuffix: built.didSuffix,
        nodeUrl,
        updateKey: privateJwk(updateKey),
        recoveryKey: privateJwk(recoveryKey),
        documentKeys: { 'key-1': signingRecord },
        pending: { create: { ...built.request } },
      };
      // The keys are saved (pending, with the request) before the create is sent: a DID must never exist
      // whose keys nobody kept, and a create whose answer was lost can be sent again from the file.
      await writeKeyFile(keyFile, keys, true);
    }
    try {
      await post(nodeUrl, keys.pending!.create!);
    } catch (error) {
      if (!resumed && neverReached(error)) {
        // Nothing reached a node (refused connection, unknown host, or a 4xx refusal): no DID exists, so the
        // file would only be keys of nothing that a retry would have to step around.
        await unlink(keyFile).catch(() => undefined);
        throw new CliError(`${describeFailure(error)}; no DID was created and ${keyFile} was not kept`);
      }
      throw new CliError(
        `${describeFailure(error)}; the keys stay in ${keyFile}, pending: run the same command again to resend the create`,
      );
    }
    const settled: DidKeys = { ...keys };
    delete settled.pending;
    await writeKeyFile(keyFile, settled);
    const published = args['wait'] ? await waitPublished(context, nodeUrl, keys.did, 'create') : undefined;
    const result = {
      did: keys.did,
      ...(longFormDid ? { longFormDid } : {}),
      keyFile,
      ...(published ? { canonicalId: published.didDocumentMetadata?.canonicalId } : {}),
    };
    out.result(result, () =>
      [
        `${out.paint(keys.did, 'bold')}`,
        `  keys in ${keyFile}`,
        ...(result.canonicalId ? [`  published as ${result.canonicalId}`] : []),
      ].join('\n'),
    );
  },
};

const resolveCommand: CommandSpec = {
  name: 'did resolve',
  describe: 'Resolve a DID on a node and show its document and metadata (the current version, or an earlier one)',
  positionals: { did: { describe: 'The DID (any did:node form), or a DID URL with ?versionId= or ?versionTime=' } },
  options: {
    'version-id': { type: 'string', describe: 'Resolve the version that this operation made (its hash)' },
    'version-time': { type: 'string', describe: 'Resolve the version current at this time (RFC 3339)' },
  },
  examples: [
    ['anchor did resolve did:node:uAAA:EiB... -n http://127.0.0.1:8082', 'resolve on node2'],
    [
      'anchor did resolve did:node:uAAA:EiB... --version-time 2026-12-01T00:00:00Z -n http://127.0.0.1:8081',
      'as it was',
    ],
  ],
  async run({ args, out }) {
    const nodeUrl = required(args.nodeUrl, 'node-url');
    const { did, versions } = parseDidUrl(required(args['did'], 'did'), {
      versionId: args['versionId'] as string | undefined,
      versionTime: args['versionTime'] as string | undefined,
    });
    const resolution = await resolve(nodeUrl, did, versions);
    out.result(resolution, () => {
      const metadata = resolution.didDocumentMetadata ?? {};
      const document = resolution.didDocument ?? {};
      const keys = (document['verificationMethod'] as Array<{ id: string; type: string }> | undefined) ?? [];
      const services =
        (document['service'] as Array<{ id: string; type: string; serviceEndpoint: unknown }> | undefined) ?? [];
      const operations = (metadata.method?.publishedOperations ?? []).map((op) => op.type);
      const published = metadata.method?.published === true;
      return [
        out.paint(String(document['id'] ?? did), 'bold'),
        `  canonical id  ${metadata.canonicalId ?? (published ? '(none)' : '(not published yet)')}`,
        // A deactivated DID has no document and the node lists no operations for it: say that, not "none".
        metadata.deactivated
          ? `  status        ${out.paint('deactivated', 'red')} (final: no document, no further operations)`
          : `  published     ${published ? out.paint('yes', 'green') : out.paint('no', 'yellow')}`,
        ...(metadata.deactivated && operations.length === 0
          ? []
          : [`  operations    ${operations.join(', ') || (published ? '(not listed)' : 'none published yet')}`]),
        ...(versions.versionId ? [`  version       ${versions.versionId}`] : []),
        ...(versions.versionTime ? [`  as of         ${versions.versionTime}`] : []),
        ...keys.map((key) => `  key           ${key.id} (${key.type})`),
        ...services.map(
          (entry) => `  service       ${entry.id} (${entry.type}) ${JSON.stringify(entry.serviceEndpoint)}`,
        ),
      ].join('\n');
    });
  },
};

const update: CommandSpec = {
  name: 'did update',
  describe: 'Update a DID: add or remove document keys and services (the update key rotates each time)',
  options: {
    'key-file': keyFileOption,
    'add-key': { type: 'array', describe: 'Id of a new Ed25519 document key to generate and add (repeatable)' },
    'remove-key': { type: 'array', describe: 'Id of a document key to remove (repeatable)' },
    'add-service': serviceOption,
    'remove-service': { type: 'array', describe: 'Id of a service to remove (repeatable)' },
    ...waitOptions,
  },
  examples: [
    ['anchor did update -k alice.json --add-key key-2 --remove-service hub --wait', 'add a key, drop a service'],
  ],
  async run(context) {
    const { args, out } = context;
    const keyFile = required(args['keyFile'], 'key-file');
    const keys = await readKeyFile(keyFile);
    const { nodeUrl, resolution } = await currentState(context, keys);
    const currentUpdate = keyForCommitment(
      keys.updateKey,
      keys.pending?.updateKey,
      resolution.didDocumentMetadata?.method?.updateCommitment,
    );
    const added = Object.fromEntries(list(args['addKey']).map((id) => [id, KeyPair.generate('Ed25519')] as const));
    const patches: Patch[] = [
      ...(Object.keys(added).length > 0
        ? [
            addPublicKeys(
              ...Object.entries(added).map(([id, key]) => documentKey(id, key, { purposes: [...DOCUMENT_PURPOSES] })),
            ),
          ]
        : []),
      ...(list(args['removeKey']).length > 0 ? [removePublicKeys(...list(args['removeKey']))] : []),
      ...parseServices(args['addService']),
      ...(list(args['removeService']).length > 0 ? [removeServices(...list(args['removeService']))] : []),
    ];
    if (patches.length === 0)
      throw new CliError('nothing to update: give --add-key, --remove-key, --add-service or --remove-service', 2);
    const nextUpdate = KeyPair.generate('Ed25519');
    const request = updateRequest({
      didSuffix: keys.didSuffix,
      updateKey: currentUpdate,
      nextUpdateKey: nextUpdate,
      patches,
    });
    const documentKeys = Object.fromEntries(Object.entries(added).map(([id, key]) => [id, privateJwk(key)]));
    await writeKeyFile(keyFile, {
      ...keys,
      updateKey: privateJwk(currentUpdate),
      pending: { updateKey: privateJwk(nextUpdate), documentKeys },
    });
    await post(nodeUrl, request);
    const removed = new Set(list(args['removeKey']));
    const settled: DidKeys = {
      ...keys,
      updateKey: privateJwk(nextUpdate),
      documentKeys: Object.fromEntries(
        Object.entries({ ...keys.documentKeys, ...documentKeys }).filter(([id]) => !removed.has(id)),
      ),
    };
    delete settled.pending;
    await writeKeyFile(keyFile, settled);
    if (args['wait']) await waitPublished(context, nodeUrl, keys.did, 'update');
    out.result(
      { did: keys.did, operation: 'update', patches },
      () => `${keys.did}: update accepted (${patches.map((p) => p.action).join(', ')})`,
    );
  },
};

const recover: CommandSpec = {
  name: 'did recover',
  describe: 'Recover a DID: a new document with a fresh key, new update and recovery keys',
  options: { 'key-file': keyFileOption, 'add-service': serviceOption, ...waitOptions },
  examples: [['anchor did recover -k alice.json --wait', 'replace the document and every key']],
  async run(context) {
    const { args, out } = context;
    const keyFile = required(args['keyFile'], 'key-file');
    const keys = await readKeyFile(keyFile);
    const { nodeUrl, resolution } = await currentState(context, keys);
    const currentRecovery = keyForCommitment(
      keys.recoveryKey,
      keys.pending?.recoveryKey,
      resolution.didDocumentMetadata?.method?.recoveryCommitment,
    );
    const signingKey = KeyPair.generate('Ed25519');
    const nextRecovery = KeyPair.generate('Ed25519');
    const nextUpdate = KeyPair.generate('Ed25519');
    const request = recoverRequest({
      didSuffix: keys.didSuffix,
      recoveryKey: currentRecovery,
      nextRecoveryKey: nextRecovery,
      nextUpdateKey: nextUpdate,
      anchorOrigin: nodeUrl,
      patches: [
        addPublicKeys(documentKey('key-1', signingKey, { purposes: [...DOCUMENT_PURPOSES] })),
        ...parseServices(args['addService']),
      ],
    });
    await writeKeyFile(keyFile, {
      ...keys,
      recoveryKey: privateJwk(currentRecovery),
      pending: {
        recoveryKey: privateJwk(nextRecovery),
        updateKey: privateJwk(nextUpdate),
        documentKeys: { 'key-1': privateJwk(signingKey) },
      },
    });
    await post(nodeUrl, request);
    await writeKeyFile(keyFile, {
      did: keys.did,
      didSuffix: keys.didSuffix,
      nodeUrl: keys.nodeUrl,
      updateKey: privateJwk(nextUpdate),
      recoveryKey: privateJwk(nextRecovery),
      documentKeys: { 'key-1': privateJwk(signingKey) },
    });
    if (args['wait']) await waitPublished(context, nodeUrl, keys.did, 'recover');
    out.result({ did: keys.did, operation: 'recover' }, () => `${keys.did}: recover accepted; new keys in ${keyFile}`);
  },
};

const deactivate: CommandSpec = {
  name: 'did deactivate',
  describe: 'Deactivate a DID (final: it can never be updated or recovered again)',
  options: { 'key-file': keyFileOption, ...waitOptions },
  examples: [['anchor did deactivate -k alice.json --wait', 'deactivate and wait until published']],
  async run(context) {
    const { args, out } = context;
    const keys = await readKeyFile(required(args['keyFile'], 'key-file'));
    const { nodeUrl, resolution } = await currentState(context, keys);
    const recoveryKey = keyForCommitment(
      keys.recoveryKey,
      keys.pending?.recoveryKey,
      resolution.didDocumentMetadata?.method?.recoveryCommitment,
    );
    await post(nodeUrl, deactivateRequest({ didSuffix: keys.didSuffix, recoveryKey }));
    if (args['wait']) await waitPublished(context, nodeUrl, keys.did, 'deactivate');
    out.result({ did: keys.did, operation: 'deactivate' }, () => `${keys.did}: deactivate accepted`);
  },
};

export const DID_COMMANDS: CommandSpec[] = [create, update, recover, deactivate, resolveCommand];
