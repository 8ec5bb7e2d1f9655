/** What the read-ahead needs of an export page: where the next one starts, and whether there is one. */
export interface ReadAheadPage {
  cursor: string;
  more: boolean;
}

/**
 * A followee's export pages fetched ahead of their use, one request at a time (each page names the next one's
 * cursor), up to `depth` pages kept: they travel while the pages taken before them are verified and committed,
 * and a catch-up takes several at once so the observer verifies enough anchors together to keep the worker
 * threads busy while a group commits (one page of 1,000 operations holds one or two anchors of a busy node).
 */
export class ExportReadAhead<P extends ReadAheadPage> {
  readonly #ready: P[] = [];
  #cursor: string;
  #fetching = false;
  #ended = false;
  #closed = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(
    private readonly fetch: (cursor: string) => Promise<P>,
    cursor: string,
    private readonly depth: number,
  ) {
    this.#cursor = cursor;
    this.#pump();
  }

  /**
   * The pages fetched so far, in order, whose `weigh`ed sum stays within `maxWeight` (always at least one),
   * waiting for one when none is there; `[]` once the export is read to its end. A failed fetch is thrown once
   * every page before it has been taken.
   */
  async take(maxWeight: number, weigh: (page: P) => number): Promise<P[]> {
    while (this.#ready.length === 0) {
      if (this.#failure) throw this.#failure.error;
      if (this.#ended || this.#closed) return [];
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    const taken: P[] = [];
    let weight = 0;
    while (this.#ready.length > 0) {
      const next = weigh(this.#ready[0] as P);
      if (taken.length > 0 && weight + next > maxWeight) break;
      taken.push(this.#ready.shift() as P);
      weight += next;
    }
    this.#pump();
    return taken;
  }

  /** No further fetches (a fetch in flight is left to finish and dropped). */
  close(): void {
    this.#closed = true;
    this.#ready.length = 0;
  }

  #pump(): void {
    if (this.#fetching || this.#ended || this.#closed || this.#failure || this.#ready.length >= this.depth) return;
    this.#fetching = true;
    this.fetch(this.#cursor)
      .then(
        (page) => {
          if (this.#closed) return;
          this.#ready.push(page);
          this.#cursor = page.cursor;
          if (!page.more) this.#ended = true;
        },
        (error: unknown) => {
          this.#failure = { error };
        },
      )
      .finally(() => {
        this.#fetching = false;
        const wake = this.#wake;
        this.#wake = undefined;
        wake?.();
        this.#pump();
      });
  }
}
