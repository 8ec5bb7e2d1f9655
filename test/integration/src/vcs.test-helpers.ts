/** Real vcs processes (services/vcs, its bin) and the calls the vcs tests make on them. */
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';
import { call, type Reply } from '@anchor/vct-log/testing';

export interface RunningVcs {
  url: string;
  port: number;
  process: ServiceProcess;
  post<T = Record<string, unknown>>(path: string, json: unknown): Promise<Reply<T>>;
}

/** A vcs on `dir` with `args` (a restart passes the same port and directory). */
export async function startVcs(dir: TempDir, args: readonly string[], port?: number): Promise<RunningVcs> {
  const listen = port ?? (await freePort());
  const url = `http://127.0.0.1:${listen}`;
  const child = await startProcess(serviceBin('@anchor/vcs'), {
    name: `vcs-${listen}`,
    args: ['--host-url', `127.0.0.1:${listen}`, '--data-dir', dir.path, '--log-level', 'warning', ...args],
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { url, port: listen, process: child, post: (path, json) => call(`${url}${path}`, { json }) };
}

let counter = 0;

/** A minimal VC 1.1 credential with a fresh id. */
export function credential(): Record<string, unknown> {
  counter += 1;
  return {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    id: `urn:uuid:7e1c0a52-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    type: ['VerifiableCredential'],
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:alice' },
  };
}
