import { KeyPair } from '@anchor/common/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/node.test-helpers.js';
import { checkLogUrl } from './log-setting.js';
import { logSignatureProblem, vcTimestampSignaturePayload } from './log-signature.js';

describe('log timestamp signatures', () => {
  const nquads = '<urn:a> <urn:b> "c" .\n';
  const payload = vcTimestampSignaturePayload(1_617_107_246_070, nquads);
  const envelope = (type: string, signature: Buffer) => Buffer.from(JSON.stringify({ algorithm: { signature: type.startsWith('ED') ? 'EDDSA' : 'ECDSA', type }, signature: signature.toString('base64') })).toString('base64');

  it('rebuilds the VCTimestampSignature the log signs (JCS, base64 N-Quads, null extensions)', () => {
    expect(payload.toString()).toBe(
      `{"entry_type":100,"extensions":null,"signature_type":100,"svct_version":0,"timestamp":1617107246070,"vc_entry":"${Buffer.from(nquads).toString('base64')}"}`,
    );
  });

  it('verifies Ed25519 and P-256 (IEEE P1363) envelopes against the published key bytes', () => {
    const ed = KeyPair.generate('Ed25519');
    const p256 = KeyPair.generate('P-256');
    expect(logSignatureProblem(envelope('ED25519', ed.sign(payload)), payload, ed.publicKeyBytes())).toBeUndefined();
    expect(logSignatureProblem(envelope('ECDSAP256IEEEP1363', p256.sign(payload)), payload, p256.publicKeyBytes())).toBeUndefined();
  });

  it('names what is wrong otherwise', () => {
    const ed = KeyPair.generate('Ed25519');
    const other = KeyPair.generate('Ed25519');
    expect(logSignatureProblem(envelope('ED25519', ed.sign(payload)), payload, other.publicKeyBytes())).toMatch(/does not verify/);
    expect(logSignatureProblem(envelope('ED25519', ed.sign(payload)), vcTimestampSignaturePayload(1, nquads), ed.publicKeyBytes())).toMatch(/does not verify/);
    expect(logSignatureProblem(envelope('RSA', ed.sign(payload)), payload, ed.publicKeyBytes())).toMatch(/unsupported log signature key type/);
    expect(logSignatureProblem('not base64 json', payload, ed.publicKeyBytes())).toMatch(/not base64 of a JSON envelope/);
  });
});

describe('log URL', () => {
  it('keeps an http(s) URL of a log alias, without a trailing slash', () => {
    expect(checkLogUrl('https://vct.example.com/maple2021/')).toBe('https://vct.example.com/maple2021');
    expect(checkLogUrl('http://127.0.0.1:7000/main')).toBe('http://127.0.0.1:7000/main');
  });

  it('refuses anything else', () => {
    expect(() => checkLogUrl('vct.example.com/main')).toThrow(/not an absolute URL/);
    expect(() => checkLogUrl('ftp://vct.example.com/main')).toThrow(/must be http or https/);
    expect(() => checkLogUrl('https://vct.example.com')).toThrow(/must name a log alias/);
    expect(() => checkLogUrl('https://vct.example.com/main?x=1')).toThrow(/query/);
  });
});

describe('GET/POST /log and vctStatus', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });
  const post = (body: string) => fetch(`${node.url}/log`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  const health = async () => (await (await fetch(`${node.url}/healthcheck`)).json()) as { vctStatus: string; status: string };

  it('has no log at first, which is not a health failure', async () => {
    expect((await fetch(`${node.url}/log`)).status).toBe(404);
    expect(await health()).toMatchObject({ vctStatus: 'log endpoint not configured', status: 'OK' });
  });

  it('stores a valid URL, refuses an invalid one, and clears with an empty body', async () => {
    expect((await post('not a url')).status).toBe(400);
    expect((await post('https://vct.example.com/maple2021/')).status).toBe(200);
    const current = await fetch(`${node.url}/log`);
    expect(current.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await current.text()).toBe('https://vct.example.com/maple2021');
    expect((await post('')).status).toBe(200);
    expect((await fetch(`${node.url}/log`)).status).toBe(404);
  });
});

describe('vctStatus with --vct-enabled=false', () => {
  it('reports disabled and stays healthy', async () => {
    const node = await startTestNode({ args: ['--vct-enabled=false'] });
    try {
      const body = (await (await fetch(`${node.url}/healthcheck`)).json()) as { vctStatus: string };
      expect(body.vctStatus).toBe('disabled');
    } finally {
      await node.stop();
    }
  });
});
