import { createHash } from 'node:crypto';
import { canonicalize as jcs } from '@anchor/common/encoding';
import { leafHash } from '@anchor/common/merkle';
import { describe, expect, it } from 'vitest';
import { buildLeaf, identityHashOf, leafHashOf, leafObject, parseLeafInput, vcEntryOf } from './leaf.js';

describe('MerkleTreeLeaf', () => {
  const vcEntry = vcEntryOf('_:c14n0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://www.w3.org/2018/credentials#VerifiableCredential> .\n');

  it('writes exactly the JCS of the leaf structure of the original', () => {
    const { leafInput } = buildLeaf(1617107246070, vcEntry);
    expect(leafInput).toBe(jcs(leafObject(1617107246070, vcEntry)));
    expect(leafInput).toBe(
      `{"leaf_type":100,"timestamped_entry":{"entry_type":100,"extensions":null,"timestamp":1617107246070,"vc_entry":"${vcEntry}"},"version":0}`,
    );
  });

  it('keeps equal to the general serialiser for any timestamp and entry', () => {
    for (const [timestamp, entry] of [
      [0, ''],
      [1, 'QQ=='],
      [Number.MAX_SAFE_INTEGER, 'ab+/'],
      [1795296848632, Buffer.alloc(3000, 7).toString('base64')],
    ] as const) {
      expect(buildLeaf(timestamp, entry).leafInput).toBe(jcs(leafObject(timestamp, entry)));
    }
  });

  it('refuses fields the direct serialisation could not write as JCS', () => {
    expect(() => buildLeaf(1.5, vcEntry)).toThrow(/non-negative integer/);
    expect(() => buildLeaf(-1, vcEntry)).toThrow(/non-negative integer/);
    expect(() => buildLeaf(1, 'not "base64"')).toThrow(/base64/);
  });

  it('hashes the leaf as an RFC 6962 leaf of its JCS bytes', () => {
    const { leafInput } = buildLeaf(12345, vcEntry);
    expect(leafHashOf(leafInput)).toEqual(leafHash(Buffer.from(leafInput)));
    expect(leafHashOf(leafInput)).toEqual(createHash('sha256').update(Buffer.concat([Buffer.from([0]), Buffer.from(leafInput)])).digest());
  });

  it('identifies a credential by the SHA-256 of its N-Quads, whatever the timestamp', () => {
    expect(identityHashOf('')).toBe(Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex').toString('base64url'));
    expect(identityHashOf('a')).not.toBe(identityHashOf('b'));
  });

  it('parses leaves back and rejects anything else', () => {
    const parsed = parseLeafInput(buildLeaf(42, vcEntry).leafInput);
    expect(parsed.timestamped_entry).toEqual({ timestamp: 42, entry_type: 100, vc_entry: vcEntry, extensions: null });
    expect(() => parseLeafInput('{"version":1,"leaf_type":100,"timestamped_entry":{}}')).toThrow(/V1/);
    expect(() => parseLeafInput('{"version":0,"leaf_type":100}')).toThrow(/V1/);
    expect(() => parseLeafInput('null')).toThrow(/V1/);
  });
});
