import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { base64UrlPaddedDecode, base64UrlPaddedEncode } from '@anchor/common/encoding';
import { createRequestSigner } from '@anchor/common/httpsig';

export const b64 = (data: Uint8Array | string): string => base64UrlPaddedEncode(data);
export const unb64 = (text: string): Buffer => base64UrlPaddedDecode(text);

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** One HTTP call: JSON in (`json`) or raw (`body`), JSON out when the answer is JSON. */
export async function call<T = Record<string, unknown>>(
  url: string,
  options: { method?: string; json?: unknown; body?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (body !== undefined) headers['content-type'] ??= 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  const parsed = response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** A did:key controller with its Ed25519 key, and signed calls made with it (the platform's HTTP signatures). */
export class Controller {
  readonly key = KeyPair.generate('Ed25519');
  readonly did = didKeyFromKeyPair(this.key);
  readonly keyId = resolveDidKey(this.did).verificationMethod?.[0]?.id as string;
  private readonly signer = createRequestSigner({ keyId: this.keyId, key: this.key });

  async call<T = Record<string, unknown>>(
    url: string,
    json?: unknown,
    method = json === undefined ? 'GET' : 'POST',
  ): Promise<Reply<T>> {
    const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
    const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    const signed = await this.signer({ method, url, headers, ...(body ? { body } : {}) });
    return call<T>(url, { method, headers: { ...headers, ...signed }, ...(body ? { body: body.toString() } : {}) });
  }
}
