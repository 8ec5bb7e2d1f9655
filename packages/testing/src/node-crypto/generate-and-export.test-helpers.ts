/**
 * Generates key pairs and exports both halves as JWK, as a client preparing many DIDs does; prints
 * `done <count>` at the end. Run by `key-generation.test.ts` in a process of its own, because a deadlock
 * inside node:crypto stops the whole thread, timers included: only another process can notice it.
 */
import { KeyPair, type KeyType } from '@anchor/common/crypto';

const count = Number(process.argv[2] ?? 20_000);
const types: KeyType[] = ['Ed25519', 'Ed25519', 'Ed25519', 'X25519', 'P-256', 'secp256k1'];
for (let i = 0; i < count; i++) {
  const pair = KeyPair.generate(types[i % types.length] as KeyType);
  pair.privateJwk();
  pair.publicJwk();
}
console.log(`done ${count}`);
