/** A committed tree head: what STHs are signed from and what every read is answered against. */
export interface TreeHead {
  size: number;
  root: Buffer;
  /** When this head was produced (ms). */
  timestamp: number;
}

/**
 * What `ForwardHead.offer` made of a head: `newer` replaced the held one; `same` or `older` (a read that
 * raced a newer one, or a database restored behind what was served) left it; `fork` is a head of the held
 * size with another root, which no honest log signs, and left it too.
 */
export type HeadOffer = 'newer' | 'same' | 'older' | 'fork';

/**
 * The head a replica answers from, which only moves forward: a larger tree, or the same tree re-signed
 * later (the max-root-age head). A monitor that saw a head from this replica never gets a smaller one
 * from it, whatever order the store's answers arrive in.
 */
export class ForwardHead {
  #head: TreeHead;

  constructor(head: TreeHead) {
    this.#head = head;
  }

  get head(): TreeHead {
    return this.#head;
  }

  /** Takes `head` when it is newer than the held one; says what it made of it. */
  offer(head: TreeHead): HeadOffer {
    const verdict = compareHeads(head, this.#head);
    if (verdict === 'newer') this.#head = head;
    return verdict;
  }
}

/** How `candidate` stands to `held` (see `HeadOffer`). */
export function compareHeads(candidate: TreeHead, held: TreeHead): HeadOffer {
  if (candidate.size > held.size) return 'newer';
  if (candidate.size < held.size) return 'older';
  if (!candidate.root.equals(held.root)) return 'fork';
  if (candidate.timestamp > held.timestamp) return 'newer';
  return candidate.timestamp === held.timestamp ? 'same' : 'older';
}
