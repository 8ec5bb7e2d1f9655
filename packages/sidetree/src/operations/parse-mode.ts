/**
 * How strictly an operation is read.
 *
 * - `ingest`: a client's request to this node. Everything is checked now, and every problem is an AppError
 *   bad_request naming it: unknown members (the spec / ION stance), sizes, the delta and its hash, the
 *   signature, key reuse, the anchor time window against the clock, the anchor origin.
 * - `anchored`: an operation read back from batch files or from storage. It is read the way Orb
 *   reads anchored data, so every node reaches the same state from the same anchors: unknown members are
 *   ignored and dropped before hashing, and the checks Orb leaves to resolution (signature, delta
 *   validity and hash, anchor time window) are recorded and applied by the resolver instead of thrown.
 */
export type ParseMode = 'ingest' | 'anchored';
