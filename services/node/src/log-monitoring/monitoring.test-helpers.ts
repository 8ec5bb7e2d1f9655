import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import { builtServiceMain, freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';

/** An anchor credential as the node logs it (no proofs), numbered so each is a distinct entry. */
export function anchorCredential(n: number | string, issuer = 'did:web:node.example.com'): Record<string, unknown> {
  return {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.activityAnchorsV1],
    id: `https://node.example.com/vc/${n}`,
    type: ['VerifiableCredential', 'AnchorCredential'],
    issuer,
    issuanceDate: '2026-11-26T06:00:00.000Z',
    credentialSubject: {
      anchor: `hl:uEiBk2x${n}oA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4`,
      href: `hl:uEiC8d${n}xL0m3qv9Y3d5e7f9h1j3k5m7n9p1r3t5v7x9z1b`,
      profile: 'https://w3id.org/orb#v0',
      rel: 'linkset',
      type: ['AnchorLink'],
    },
  };
}

/**
 * A real vct-log process that signs with `keyFile` and names itself `baseUrl` in WebFinger, so several
 * logs with one key can stand behind one URL (a log that shows different histories to different askers).
 */
export async function startLog(
  dir: TempDir,
  name: string,
  options: { keyFile: string; baseUrl: string; args?: readonly string[] },
): Promise<{ process: ServiceProcess; url: string }> {
  const main = builtServiceMain('vct-log');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(main, {
    name: `vct-log-${name}:${port}`,
    args: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--data-dir',
      join(dir.path, name),
      '--key-file',
      options.keyFile,
      '--base-url',
      options.baseUrl,
      '--integration-interval',
      '20ms',
      ...(options.args ?? []),
    ],
    env: { VCT_LOG_LEVEL: 'warning' },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { process, url };
}

/**
 * The log's URL as the node sees it: every request is passed on unchanged to whichever real log `target`
 * names — so switching the target makes one log URL serve another history, signed with the same key, as
 * a forking log would. With `tamperTreeHead` the tree head's root is altered on the way, with
 * `garbageTreeHead` get-sth answers a JSON object that is no tree head; with `entriesTarget` get-entries is
 * answered by another log.
 */
export interface SplitViewLog {
  url: string;
  target: string;
  entriesTarget: string | undefined;
  tamperTreeHead: boolean;
  garbageTreeHead: boolean;
  close(): Promise<void>;
}

export async function startSplitViewLog(port?: number): Promise<SplitViewLog> {
  const view = {
    target: '',
    entriesTarget: undefined as string | undefined,
    tamperTreeHead: false,
    garbageTreeHead: false,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const target = new URL(
        path,
        path.includes('/v1/get-entries') ? (view.entriesTarget ?? view.target) : view.target,
      );
      const headers = { ...req.headers, host: target.host };
      const upstream = request(target, { method: req.method, headers }, (answer: IncomingMessage) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          let bytes = Buffer.concat(body);
          if (view.garbageTreeHead && target.pathname.endsWith('/v1/get-sth'))
            bytes = Buffer.from('{"tree_size":"many"}\n');
          else if (view.tamperTreeHead && target.pathname.endsWith('/v1/get-sth') && answer.statusCode === 200) {
            const sth = JSON.parse(bytes.toString('utf8')) as { sha256_root_hash: string };
            sth.sha256_root_hash = Buffer.alloc(32, 0x5a).toString('base64');
            bytes = Buffer.from(`${JSON.stringify(sth)}\n`);
          }
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': bytes.length });
          res.end(bytes);
        });
      });
      upstream.on('error', () => {
        res.writeHead(502).end();
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get target() {
      return view.target;
    },
    set target(value: string) {
      view.target = value;
    },
    get entriesTarget() {
      return view.entriesTarget;
    },
    set entriesTarget(value: string | undefined) {
      view.entriesTarget = value;
    },
    get garbageTreeHead() {
      return view.garbageTreeHead;
    },
    set garbageTreeHead(value: boolean) {
      view.garbageTreeHead = value;
    },
    get tamperTreeHead() {
      return view.tamperTreeHead;
    },
    set tamperTreeHead(value: boolean) {
      view.tamperTreeHead = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
