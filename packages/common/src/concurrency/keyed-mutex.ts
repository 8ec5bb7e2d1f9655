/**
 * Runs async work one at a time per key (in this process): the intake serialises operations of one DID so
 * that each is checked against the state its predecessor left; the observer serialises its commits; a storage provider, its opens of one store name.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Resolves once every run started before the call has finished (a closing owner waits for them). */
  async settled(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
