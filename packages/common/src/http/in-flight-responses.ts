/**
 * The responses a server has open, for a graceful shutdown to find: an array of slots reused through a
 * free list. A `Set` churned once per request would carry its responses into the old generation: V8 keeps
 * a Set's superseded hash table, with the entries it held, until a full GC (so that iterators can follow
 * it), and a dead table in the old generation keeps those responses alive through every scavenge, until
 * they are promoted with everything they reference (measured in ADR 0012). A cleared slot holds nothing.
 */
export class InFlightResponses<T extends object> {
  readonly #slots: (T | undefined)[] = [];
  readonly #free: number[] = [];

  /** Keeps `item` until `delete` is given the slot returned here. */
  add(item: T): number {
    const slot = this.#free.pop();
    if (slot === undefined) return this.#slots.push(item) - 1;
    this.#slots[slot] = item;
    return slot;
  }

  delete(slot: number): void {
    if (this.#slots[slot] === undefined) return;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
  }

  get size(): number {
    return this.#slots.length - this.#free.length;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const item of this.#slots) if (item !== undefined) yield item;
  }
}
