import { constants, createHmac, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseDictionary, type InnerList } from 'structured-headers';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { contentDigestHeader, verifyContentDigest } from './content-digest.js';
import {
  messageSignatureBase,
  parseMessageSignature,
  signatureInput,
  type SignedMessage,
} from './message-signature.js';
import { signMessage } from './message-signer.js';
import { parsePublicKeyPem } from './public-key-pem.js';

/**
 * RFC 9421 Appendix B (vectors/rfc9421/README.md): every B.2 signature base rebuilt byte for byte from the
 * test messages and the published `Signature-Input`; the signatures checked against those bases, by this
 * module's verification keys where it takes the key type (Ed25519 B.2.6, ECDSA P-256 B.2.4) and by node:crypto
 * for RSA-PSS and HMAC (which the module does not take: see the README); B.2.6 signed again, exactly.
 */
interface Vectors {
  messages: Record<'test-request' | 'test-response', { startLine: string; headers: [string, string][]; body: string }>;
  keys: Record<string, { publicKeyPem?: string; privateKeyPem?: string; base64?: string }>;
  cases: {
    section: string;
    label: string;
    message: 'test-request' | 'test-response';
    algorithm: string;
    key: string;
    signatureInput: string;
    signature: string;
    signatureBase: string;
  }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('./vectors/rfc9421/appendix-b.json', import.meta.url), 'utf8'),
) as Vectors;
const APPLICABLE = new Set(['ed25519', 'ecdsa-p256-sha256']);
let ran = 0;
const checkedByModule: string[] = [];
let signedAgain = false;

function messageOf(name: 'test-request' | 'test-response'): SignedMessage {
  const { startLine, headers } = vectors.messages[name];
  const record = Object.fromEntries(headers.map(([field, value]) => [field.toLowerCase(), value]));
  const [first, target] = startLine.split(' ') as [string, string];
  if (first.startsWith('HTTP/')) return { status: Number(target), headers: record };
  // The request names no scheme; none of the B.2 cases covers one (@target-uri, @scheme).
  return { method: first, url: `https://${record.host}${target}`, headers: record };
}

function keyPem(name: string, which: 'publicKeyPem' | 'privateKeyPem'): string {
  const pem = vectors.keys[name]?.[which];
  if (pem === undefined) throw new Error(`vectors: no ${which} for ${name}`);
  return pem;
}

describe('RFC 9421 Appendix B test vectors', () => {
  afterAll(() => {
    console.log(
      `RFC 9421: ${ran} vectors ran (${vectors.cases.length} signature bases byte for byte, their signatures, ` +
        `2 Content-Digest values); verified by the module's keys: ${checkedByModule.join(', ')}; B.2.6 signed again ` +
        `byte for byte: ${signedAgain}; ` +
        `RSA-PSS (B.2.1-B.2.3) and HMAC (B.2.5) checked with node:crypto only: the module takes Ed25519 and ECDSA keys`,
    );
  });

  it.each(vectors.cases.map((vector) => [vector.section, vector] as const))('%s', async (_section, vector) => {
    const fields = { 'signature-input': vector.signatureInput, signature: vector.signature };
    const parsed = parseMessageSignature(fields);
    expect(parsed.label).toBe(vector.label);
    const base = messageSignatureBase(messageOf(vector.message), parsed.input);
    expect(base).toBe(vector.signatureBase);

    const data = Buffer.from(base, 'utf8');
    switch (vector.algorithm) {
      case 'rsa-pss-sha512': {
        const key = createPublicKey(keyPem(vector.key, 'publicKeyPem'));
        const options = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 };
        expect(verify('sha512', data, options, parsed.signature)).toBe(true);
        break;
      }
      case 'hmac-sha256': {
        const secret = Buffer.from(vectors.keys[vector.key]?.base64 ?? '', 'base64');
        expect(createHmac('sha256', secret).update(data).digest()).toEqual(parsed.signature);
        break;
      }
      default: {
        expect(APPLICABLE.has(vector.algorithm)).toBe(true);
        const key = parsePublicKeyPem(keyPem(vector.key, 'publicKeyPem'));
        expect(key.verify(data, parsed.signature)).toBe(true);
        expect(key.verify(Buffer.from(`${base} `, 'utf8'), parsed.signature)).toBe(false);
        checkedByModule.push(vector.section);
      }
    }
    ran++;
  });

  it('B.2.6: signs the same Signature-Input and Signature with test-key-ed25519', async () => {
    const vector = vectors.cases.find((c) => c.section === 'B.2.6');
    if (!vector) throw new Error('vectors: no B.2.6');
    const key = KeyPair.fromPem(keyPem('test-key-ed25519', 'privateKeyPem'));
    const input = signatureInput(['date', '@method', '@path', '@authority', 'content-type', 'content-length'], {
      created: 1618884473,
      keyid: 'test-key-ed25519',
    });
    const fields = await signMessage(messageOf('test-request'), input, key, 'Ed25519', vector.label);
    expect(fields).toEqual({ 'Signature-Input': vector.signatureInput, Signature: vector.signature });
    signedAgain = true;
  });

  it.each(['test-request', 'test-response'] as const)('the Content-Digest of %s', (name) => {
    const { headers, body } = vectors.messages[name];
    const published = headers.find(([field]) => field === 'Content-Digest')?.[1];
    expect(contentDigestHeader(Buffer.from(body, 'utf8'), 'sha-512')).toBe(published);
    verifyContentDigest(published ?? '', Buffer.from(body, 'utf8'));
    expect(() => verifyContentDigest(published ?? '', Buffer.from(`${body} `, 'utf8'))).toThrow(/mismatch/);
    ran++;
  });
});

interface ComponentVectors {
  cases: { section: string; message: SignedMessage; component: string; line: string }[];
  notApplicable: { section: string; what: string; why: string }[];
}

const components = JSON.parse(
  readFileSync(new URL('./vectors/rfc9421/section-2.json', import.meta.url), 'utf8'),
) as ComponentVectors;
let componentsRan = 0;

describe('RFC 9421 section 2 component values', () => {
  afterAll(() => {
    console.log(
      `RFC 9421 components: ${componentsRan} of ${components.cases.length} section 2 examples ran; not applicable: ` +
        components.notApplicable.map((entry) => `${entry.section} ${entry.what} (${entry.why})`).join('; '),
    );
  });

  it.each(components.cases.map((vector) => [vector.section, vector.component, vector] as const))(
    '%s %s',
    (_section, component, vector) => {
      const input = parseDictionary(`sig=(${component})`).get('sig') as InnerList;
      const [line, signatureParams] = messageSignatureBase(vector.message, input).split('\n');
      expect(line).toBe(vector.line);
      expect(signatureParams).toBe(`"@signature-params": (${component})`);
      componentsRan++;
    },
  );
});
