// The package ships no types; these are the calls used here (its README's API).
declare module '@digitalbazaar/bbs-signatures' {
  type Ciphersuite = 'BLS12-381-SHA-256' | 'BLS12-381-SHAKE-256';
  export function generateKeyPair(options: {
    seed?: Uint8Array;
    ciphersuite: Ciphersuite;
  }): Promise<{ secretKey: Uint8Array; publicKey: Uint8Array }>;
  export function secretKeyToPublicKey(options: {
    secretKey: Uint8Array;
    ciphersuite: Ciphersuite;
  }): Promise<Uint8Array>;
  export function sign(options: {
    secretKey: Uint8Array;
    publicKey: Uint8Array;
    header: Uint8Array;
    messages: Uint8Array[];
    ciphersuite: Ciphersuite;
  }): Promise<Uint8Array>;
  export function verifySignature(options: {
    publicKey: Uint8Array;
    signature: Uint8Array;
    header: Uint8Array;
    messages: Uint8Array[];
    ciphersuite: Ciphersuite;
  }): Promise<boolean>;
  export function deriveProof(options: {
    publicKey: Uint8Array;
    signature: Uint8Array;
    header: Uint8Array;
    messages: Uint8Array[];
    presentationHeader: Uint8Array;
    disclosedMessageIndexes: number[];
    ciphersuite: Ciphersuite;
  }): Promise<Uint8Array>;
  export function verifyProof(options: {
    publicKey: Uint8Array;
    proof: Uint8Array;
    header: Uint8Array;
    presentationHeader: Uint8Array;
    disclosedMessages: Uint8Array[];
    disclosedMessageIndexes: number[];
    ciphersuite: Ciphersuite;
  }): Promise<boolean>;
}
