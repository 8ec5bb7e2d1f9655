import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, credentialV2, issue, issuerProfile, startTestVcs, type TestVcs } from '../vcs.test-helpers.js';

type Json = null | boolean | number | string | Json[] | { [name: string]: Json };
type Path = ReadonlyArray<string | number>;

interface Mutation {
  label: string;
  text: string;
}

/** Every member and array element of a value, depth first, by path. */
function paths(value: Json, at: Path = []): Path[] {
  const found: Path[] = [];
  if (Array.isArray(value)) value.forEach((item, index) => found.push([...at, index], ...paths(item, [...at, index])));
  else if (value !== null && typeof value === 'object')
    for (const [name, member] of Object.entries(value)) found.push([...at, name], ...paths(member, [...at, name]));
  return found;
}

function get(value: Json, path: Path): Json {
  return path.reduce<Json>((at, key) => (at as Record<string | number, Json>)[key] as Json, value);
}

/** A copy with the value at `path` replaced (or removed: `undefined`). */
function withValue(value: Json, path: Path, replacement: Json | undefined): Json {
  const copy = structuredClone(value);
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, Json> | Json[];
  const key = path[path.length - 1] as string | number;
  if (replacement !== undefined) (parent as Record<string | number, Json>)[key] = replacement;
  else if (Array.isArray(parent)) parent.splice(key as number, 1);
  else delete (parent as Record<string, Json>)[key as string];
  return copy;
}

/** A value of the same type that means something else. */
function changed(value: Json): Json | undefined {
  if (typeof value === 'string') return `${value}x`;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  return undefined; // objects and arrays change through their members
}

/**
 * Values of other types. A one-element array and its element are left out on purpose: JSON-LD reads both as
 * the same statement (`"type":"X"` and `"type":["X"]`), so they are the same credential, not a forgery.
 */
function otherTypes(value: Json): Json[] {
  const all: Json[] = ['x', 7, true, {}, []];
  return all.filter((other) => {
    if (Array.isArray(value)) return !Array.isArray(other);
    if (value !== null && typeof value === 'object') return Array.isArray(other) || typeof other !== 'object';
    return typeof other !== typeof value;
  });
}

/** The JSON text with the member at `path` given twice: its own value, then `second`. */
function withDuplicate(value: Json, path: Path, second: Json): string {
  const parentPath = path.slice(0, -1);
  const name = path[path.length - 1] as string;
  const write = (at: Json, where: Path): string => {
    if (Array.isArray(at)) return `[${at.map((item, index) => write(item, [...where, index])).join(',')}]`;
    if (at === null || typeof at !== 'object') return JSON.stringify(at);
    const members = Object.entries(at).map(
      ([key, member]) => `${JSON.stringify(key)}:${write(member, [...where, key])}`,
    );
    if (where.length === parentPath.length && where.every((key, index) => key === parentPath[index]))
      members.push(`${JSON.stringify(name)}:${JSON.stringify(second)}`);
    return `{${members.join(',')}}`;
  };
  return write(value, []);
}

/** Every mutation of a credential: each member changed, removed, duplicated, given another type; proof parts swapped. */
function mutations(credential: Json, other: Json): Mutation[] {
  const found: Mutation[] = [];
  const add = (label: string, value: Json) => found.push({ label, text: JSON.stringify(value) });
  for (const path of paths(credential)) {
    const value = get(credential, path);
    const where = path.join('.');
    const change = changed(value);
    if (change !== undefined) add(`${where} changed`, withValue(credential, path, change));
    add(`${where} removed`, withValue(credential, path, undefined));
    for (const swapped of otherTypes(value))
      add(`${where} as ${JSON.stringify(swapped)}`, withValue(credential, path, swapped));
    if (typeof path[path.length - 1] === 'string') {
      found.push({ label: `${where} twice, same value`, text: withDuplicate(credential, path, value) });
      found.push({ label: `${where} twice, changed`, text: withDuplicate(credential, path, change ?? 'x') });
    }
  }
  const proof = (credential as { proof: Record<string, Json> }).proof;
  const theirs = (other as { proof: Record<string, Json> }).proof;
  for (const [name, part] of Object.entries(theirs))
    if (JSON.stringify(part) !== JSON.stringify(proof[name]))
      add(`proof.${name} from another credential`, withValue(credential, ['proof', name], part));
  add('the proof of another credential', withValue(credential, ['proof'], theirs));
  return found;
}

describe('verifier fuzz: no mutation of a valid credential verifies', () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs();
    await issuerProfile(vcs, 'ed2020');
    await issuerProfile(vcs, 'rdfc', { signatureType: 'eddsa-rdfc-2022' });
  });
  afterAll(async () => vcs?.stop());

  const verifies = async (text: string): Promise<boolean> => {
    const response = await fetch(`${vcs.url}/verifier/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"verifiableCredential":${text}}`,
    });
    await response.arrayBuffer();
    return response.status === 200;
  };

  it('refuses every member changed, removed, duplicated or of another type, and proof parts swapped (count printed)', async () => {
    const cases: Array<[string, () => Record<string, unknown>]> = [
      [
        'ed2020',
        () => credentialV1({ credentialSubject: { id: 'did:example:alice' }, expirationDate: '2099-01-01T00:00:00Z' }),
      ],
      ['rdfc', () => credentialV2({ validFrom: '2024-01-01T00:00:00Z', validUntil: '2099-01-01T00:00:00Z' })],
    ];
    let tried = 0;
    const verified: string[] = [];
    for (const [profile, make] of cases) {
      const credential = (await issue(vcs, profile, make())) as Json;
      const other = (await issue(vcs, profile, make())) as Json;
      // The mutations mean something only if the originals verify.
      expect(await verifies(JSON.stringify(credential)), profile).toBe(true);
      for (const mutation of mutations(credential, other)) {
        tried++;
        if (await verifies(mutation.text)) verified.push(`${profile}: ${mutation.label}`);
      }
    }
    console.log(`verifier fuzz: ${tried} mutations of 2 credentials tried, ${verified.length} verified`);
    expect(verified).toEqual([]);
    expect(tried).toBeGreaterThan(200);
  }, 180_000);
});
