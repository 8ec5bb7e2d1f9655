import { httpbis } from 'http-message-signatures';
import {
  isInnerList,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
  type InnerList,
  type Parameters,
} from 'structured-headers';
import { unauthorized } from '../errors/index.js';
import type { HttpSigKeyType } from './algorithms.js';

/**
 * RFC 9421 HTTP Message Signatures: the `Signature-Input` / `Signature` dictionaries and the signature base.
 * The base (component values, `@signature-params`) is built by the `http-message-signatures` library, which
 * reproduces RFC 9421 Appendix B byte for byte (vectors/rfc9421); the fields are parsed and written with
 * `structured-headers` (RFC 8941). What a request must cover, and the keys, stay this module's own rules.
 */

/** The RFC 9421 registry names of the algorithms our key types sign with; secp256k1 has none (sent without `alg`). */
export const MESSAGE_SIGNATURE_ALGORITHMS: Partial<Record<HttpSigKeyType, string>> = {
  Ed25519: 'ed25519',
  'P-256': 'ecdsa-p256-sha256',
  'P-384': 'ecdsa-p384-sha384',
};

/** A message as the signature base sees it: a request (method, absolute URL) or a response (status). */
export type SignedMessage =
  | { method: string; url: string; headers: Record<string, string | string[] | undefined> }
  | { status: number; headers: Record<string, string | string[] | undefined> };

export interface MessageSignatureParameters {
  keyid?: string;
  created?: number;
  expires?: number;
  alg?: string;
  nonce?: string;
  tag?: string;
}

/** One signature of a message: its label, covered components (as serialized, e.g. `"@method"`), parameters and bytes. */
export interface MessageSignature {
  label: string;
  components: string[];
  /** Component names without their parameters, lower-case: `@method`, `content-digest`. */
  componentNames: string[];
  params: MessageSignatureParameters;
  /** The parsed `Signature-Input` member, from which the base's `@signature-params` line is serialized. */
  input: InnerList;
  signature: Buffer;
}

/** Longer fields are refused before parsing, as for the draft-cavage header. */
const MAX_FIELD_LENGTH = 8192;

/**
 * Reads the first signature of a message (in `Signature-Input` order): a message normally carries one, and a
 * verifier that picked among several would let a sender choose the weakest. Malformed fields are a 401.
 */
export function parseMessageSignature(headers: Record<string, string | string[] | undefined>): MessageSignature {
  const inputs = dictionaryField(headers, 'signature-input');
  const signatures = dictionaryField(headers, 'signature');
  const first = inputs.entries().next();
  if (first.done) throw malformed('Signature-Input is empty');
  const [label, input] = first.value;
  if (!isInnerList(input)) throw malformed(`Signature-Input ${label} is not an inner list`);
  const signatureMember = signatures.get(label);
  if (signatureMember === undefined) throw malformed(`Signature has no member ${label}`);
  const bytes = signatureMember[0];
  if (!(bytes instanceof ArrayBuffer)) throw malformed(`Signature ${label} is not a byte sequence`);

  const components: string[] = [];
  const componentNames: string[] = [];
  for (const item of input[0]) {
    if (typeof item[0] !== 'string') throw malformed(`Signature-Input ${label} lists a component that is not a string`);
    components.push(serializeItem(item));
    componentNames.push(item[0].toLowerCase());
  }
  if (new Set(components).size !== components.length)
    throw malformed(`Signature-Input ${label} lists a component twice`);
  return {
    label,
    components,
    componentNames,
    params: readParameters(input[1], label),
    input,
    signature: Buffer.from(bytes),
  };
}

/** The signature base (RFC 9421 section 2.5) of a message for the given `Signature-Input` member. */
export function messageSignatureBase(message: SignedMessage, input: InnerList): string {
  const fields = input[0].map((item) => serializeItem(item));
  const headers = definedHeaders(message.headers);
  let base: [string, string[]][];
  try {
    base =
      'status' in message
        ? httpbis.createSignatureBase({ fields }, { status: message.status, headers })
        : httpbis.createSignatureBase({ fields }, { method: message.method, url: message.url, headers });
  } catch (error) {
    throw unauthorized(`the signature base cannot be built: ${(error as Error).message}`);
  }
  base.push(['"@signature-params"', [serializeInnerList(input)]]);
  return httpbis.formatSignatureBase(base);
}

/** The inner list a signer writes: the components (plain names) with the parameters in the given order. */
export function signatureInput(components: readonly string[], params: MessageSignatureParameters): InnerList {
  const parameters: Parameters = new Map();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) parameters.set(name, value);
  return [components.map((name) => [name, new Map()]), parameters];
}

/** The `Signature-Input` and `Signature` field values for one signature under `label`. */
export function formatMessageSignature(
  label: string,
  input: InnerList,
  signature: Uint8Array,
): Record<'Signature-Input' | 'Signature', string> {
  return {
    'Signature-Input': serializeDictionary(new Map([[label, input]])),
    Signature: serializeDictionary(new Map([[label, [Buffer.from(signature), new Map()]]])),
  };
}

function readParameters(parameters: Parameters, label: string): MessageSignatureParameters {
  const params: MessageSignatureParameters = {};
  for (const [name, value] of parameters) {
    switch (name) {
      case 'created':
      case 'expires':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
          throw malformed(`${name} of ${label} must be an integer number of seconds`);
        params[name] = value;
        break;
      case 'keyid':
      case 'alg':
      case 'nonce':
      case 'tag':
        if (typeof value !== 'string') throw malformed(`${name} of ${label} must be a string`);
        params[name] = value;
        break;
      // Unknown parameters are covered by @signature-params and otherwise ignored, as the RFC requires.
    }
  }
  return params;
}

function dictionaryField(headers: Record<string, string | string[] | undefined>, name: string) {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value === undefined) throw malformed(`the ${name} field is missing`);
  if (value.length > MAX_FIELD_LENGTH) throw malformed(`${name} is longer than ${MAX_FIELD_LENGTH} characters`);
  try {
    return parseDictionary(value);
  } catch (error) {
    throw malformed(`${name} is not a structured dictionary (${(error as Error).message})`);
  }
}

function definedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

function malformed(reason: string) {
  return unauthorized(`malformed RFC 9421 signature: ${reason}`);
}
