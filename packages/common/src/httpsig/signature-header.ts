import { base64Decode } from '../encoding/index.js';
import { unauthorized } from '../errors/index.js';

/**
 * The draft-cavage `Signature` header: `keyId="...",algorithm="...",headers="...",signature="..."`.
 *
 * Orb (through igor-pavlenko/httpsignatures-go) writes the parameters in that order,
 * joined by a bare `,`, with the header list in its configured casing: `(request-target) Date Digest`.
 */
export interface SignatureParameters {
  keyId: string;
  /** As sent; absent when the sender left it out (the draft then derives the algorithm from the key). */
  algorithm?: string;
  /** Signed header names, lower-cased for comparison; the draft's default is `(created)` alone. */
  headers: string[];
  /** Decoded signature bytes. */
  signature: Buffer;
  created?: number;
  expires?: number;
}

/** Longer headers are refused before parsing: no legitimate signature needs them, and parsing is linear anyway. */
const MAX_HEADER_LENGTH = 8192;
const TOKEN = /^[A-Za-z][A-Za-z0-9_-]*$/;
const STRING_PARAMS = new Set(['keyId', 'algorithm', 'headers', 'signature']);
const NUMBER_PARAMS = new Set(['created', 'expires']);

/** Formats a `Signature` header value exactly as Orb does. */
export function formatSignatureHeader(params: {
  keyId: string;
  algorithm: string;
  headers: readonly string[];
  signature: Uint8Array;
}): string {
  for (const [name, value] of [
    ['keyId', params.keyId],
    ['algorithm', params.algorithm],
  ] as const) {
    // A quote or a control character would let the value break out of its quoted-string.
    if (value.length === 0 || [...value].some(breaksQuotedString))
      throw new TypeError(`invalid ${name} for a Signature header: ${JSON.stringify(value)}`);
  }
  const signature = Buffer.from(params.signature).toString('base64');
  return `keyId="${params.keyId}",algorithm="${params.algorithm}",headers="${params.headers.join(' ')}",signature="${signature}"`;
}

/**
 * Parses a `Signature` header strictly: `name="quoted"` (or a bare integer for `created`/`expires`)
 * separated by commas with optional whitespace. Unknown parameter names are ignored, as the draft requires;
 * duplicated parameters, bad syntax, a missing `keyId` or `signature`, and non-base64 signatures are
 * rejected with a 401 naming the problem.
 */
export function parseSignatureHeader(value: string): SignatureParameters {
  if (value.length > MAX_HEADER_LENGTH) throw malformed(`longer than ${MAX_HEADER_LENGTH} characters`);
  const raw = new Map<string, { text: string; quoted: boolean }>();
  let i = 0;
  const skipSpaces = (): void => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };

  skipSpaces();
  if (i === value.length) throw malformed('empty');
  for (;;) {
    const eq = value.indexOf('=', i);
    if (eq < 0) throw malformed(`expected name=value at offset ${i}`);
    const name = value.slice(i, eq).trim();
    if (!TOKEN.test(name)) throw malformed(`invalid parameter name ${JSON.stringify(name)}`);
    i = eq + 1;
    skipSpaces();
    let paramValue: { text: string; quoted: boolean };
    if (value[i] === '"') {
      const close = value.indexOf('"', i + 1);
      if (close < 0) throw malformed(`unterminated quoted value for ${name}`);
      paramValue = { text: value.slice(i + 1, close), quoted: true };
      i = close + 1;
    } else {
      // Only `created` and `expires` are bare integers; anything else must be quoted.
      const match = /^[0-9]+/.exec(value.slice(i));
      if (!match) throw malformed(`value of ${name} must be a quoted string`);
      paramValue = { text: match[0], quoted: false };
      i += match[0].length;
    }
    if (raw.has(name)) throw malformed(`duplicate parameter ${name}`);
    raw.set(name, paramValue);
    skipSpaces();
    if (i === value.length) break;
    if (value[i] !== ',') throw malformed(`expected ',' after the value of ${name}`);
    i++;
    skipSpaces();
    if (i === value.length) throw malformed('trailing comma');
  }

  for (const name of STRING_PARAMS) {
    if (raw.get(name)?.quoted === false) throw malformed(`value of ${name} must be a quoted string`);
  }
  const numbers: Partial<Record<'created' | 'expires', number>> = {};
  for (const name of NUMBER_PARAMS) {
    const v = raw.get(name)?.text;
    if (v === undefined) continue;
    if (!/^[0-9]{1,12}$/.test(v)) throw malformed(`${name} must be an integer number of seconds`);
    numbers[name as 'created' | 'expires'] = Number(v);
  }

  const keyId = raw.get('keyId')?.text;
  if (!keyId) throw malformed('missing keyId');
  const signatureText = raw.get('signature')?.text;
  if (!signatureText) throw malformed('missing signature');
  let signature: Buffer;
  try {
    signature = base64Decode(signatureText);
  } catch {
    throw malformed('signature is not base64');
  }
  const headersText = raw.get('headers')?.text;
  if (headersText !== undefined && headersText.trim() === '') throw malformed('empty headers list');
  const headers =
    headersText === undefined
      ? ['(created)']
      : headersText
          .trim()
          .split(/[ \t]+/)
          .map((h) => h.toLowerCase());
  if (new Set(headers).size !== headers.length) throw malformed('a header is listed twice in headers');

  const algorithm = raw.get('algorithm')?.text;
  return {
    keyId,
    ...(algorithm === undefined ? {} : { algorithm }),
    headers,
    signature,
    ...numbers,
  };
}

function breaksQuotedString(char: string): boolean {
  const code = char.charCodeAt(0);
  return char === '"' || char === '\\' || code < 0x20 || code === 0x7f;
}

function malformed(reason: string) {
  return unauthorized(`malformed Signature header: ${reason}`);
}
