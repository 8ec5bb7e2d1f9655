import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bitAt, decodeList, emptyList, encodeList, withBit } from './bitstring.js';
import { checkStatus, parseStatusEntry } from './credentials.js';

/** Published status lists (vectors/README.md): the spec's example, and Digital Bazaar's, which fixes the bit order. */
const read = (name: string) => JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8'));
const spec = read('bitstring-status-list-spec.json');
const digitalBazaar = read('digitalbazaar-vc-bitstring-status-list.json') as {
  lists: { encodedList: string; entries: number; set: number[] }[];
};
let vectors = 0;
afterAll(() => console.info(`Bitstring Status List: ${vectors} published vectors checked`));

describe('Bitstring Status List published vectors', () => {
  it("encodes an empty 131,072-entry list exactly as the specification's example, and reads its entry as valid", () => {
    expect(encodeList(emptyList(), 'BitstringStatusList')).toBe(spec.credential.credentialSubject.encodedList);
    for (const entry of spec.entries) {
      expect(checkStatus(parseStatusEntry(entry), spec.credential)).toMatchObject({ status: 0, valid: true });
    }
    vectors += 1;
  });

  it.each(digitalBazaar.lists.map((list) => [list.set.join(',') || 'none', list] as const))(
    "reads Digital Bazaar's 100,000-entry list with entries %s set, and writes it byte for byte",
    (_name, list) => {
      const bits = decodeList(list.encodedList, 'StatusList2021', { minEntries: list.entries });
      expect(bits).toHaveLength(list.entries / 8);
      let expected: Uint8Array = new Uint8Array(list.entries / 8);
      for (const index of list.set) expected = withBit(expected, index, true);
      expect(bits).toEqual(expected);
      for (const index of list.set) {
        expect(bitAt(bits, index)).toBe(true);
        expect(bits[index >> 3]).toBe(0x80 >> (index & 7)); // most significant bit first
      }
      expect(encodeList(expected, 'StatusList2021')).toBe(list.encodedList);
      vectors += 1;
    },
  );
});
