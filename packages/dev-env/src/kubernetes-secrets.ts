import { readFileSync } from 'node:fs';
import { request } from 'node:https';

/**
 * The smallest client of the Kubernetes API that kms-init needs inside a cluster: read a Secret, create one.
 * It authenticates with the pod's service account (token and CA mounted by Kubernetes) and talks to the API
 * server named by KUBERNETES_SERVICE_HOST / _PORT; the Job's Role allows get and create on secrets only.
 */
export interface KubernetesApi {
  readonly namespace: string;
  /** The Secret's data (values decoded), or undefined when it does not exist. */
  getSecret(name: string): Promise<Record<string, string> | undefined>;
  /** Creates the Secret; a conflict (someone created it meanwhile) is an error, so nothing is overwritten. */
  createSecret(name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<void>;
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  /** Defaults to https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT. */
  apiUrl?: string;
  token?: string;
  ca?: string | Buffer;
  namespace?: string;
}

export function inClusterApi(options: InClusterOptions = {}): KubernetesApi {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'] ?? '443';
  const apiUrl =
    options.apiUrl ?? (host === undefined ? undefined : `https://${host.includes(':') ? `[${host}]` : host}:${port}`);
  if (apiUrl === undefined) throw new Error('not in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set');
  const token = options.token ?? readFileSync(`${SERVICE_ACCOUNT}/token`, 'utf8').trim();
  const ca = options.ca ?? readFileSync(`${SERVICE_ACCOUNT}/ca.crt`);
  const namespace = options.namespace ?? readFileSync(`${SERVICE_ACCOUNT}/namespace`, 'utf8').trim();
  const secrets = `${apiUrl}/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

  const call = (method: string, url: string, body?: unknown) =>
    new Promise<{ status: number; json: unknown }>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        url,
        {
          method,
          ca,
          timeout: 15_000,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = text === '' ? undefined : JSON.parse(text);
            } catch {
              json = text;
            }
            resolve({ status: response.statusCode ?? 0, json });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within 15 s`)));
      req.on('error', reject);
      req.end(payload);
    });

  const failure = (what: string, answer: { status: number; json: unknown }) =>
    new Error(
      `${what}: the Kubernetes API answered ${answer.status}: ${(answer.json as { message?: string })?.message ?? ''}`,
    );

  return {
    namespace,
    async getSecret(name) {
      const answer = await call('GET', `${secrets}/${encodeURIComponent(name)}`);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw failure(`reading secret ${name}`, answer);
      const data = (answer.json as { data?: Record<string, string> }).data ?? {};
      return Object.fromEntries(
        Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
      );
    },
    async createSecret(name, data, labels = {}) {
      const answer = await call('POST', secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels },
        type: 'Opaque',
        data: Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
        ),
      });
      if (answer.status !== 201) throw failure(`creating secret ${name}`, answer);
    },
  };
}
