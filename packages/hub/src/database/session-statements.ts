/**
 * The statements one server session has prepared, by name: their text. Two kinds (database/transaction-plan.ts,
 * Prepared): those of a fixed name, a small set written into the Hub's code, kept for the session's life; and
 * those named by their text, of which there are as many as the texts a session meets (a projection's statement
 * for each set of columns it writes, each length of a list), kept up to a bound: the least recently used goes
 * (DEALLOCATE) to make room for a new one, so what a long-lived session holds on the server stays bounded.
 */
export class SessionStatements {
  readonly #named = new Map<string, string>();
  /** Named by their text, least recently used first. */
  readonly #byText = new Map<string, string>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The text the session holds under `name`, if it holds one; a statement named by its text counts as used. */
  use(name: string): string | undefined {
    const named = this.#named.get(name);
    if (named !== undefined) return named;
    const text = this.#byText.get(name);
    if (text !== undefined) {
      this.#byText.delete(name);
      this.#byText.set(name, text);
    }
    return text;
  }

  /**
   * Counts statements as prepared, and answers the ones named by their text that go to keep the bound: the least
   * recently used, never one of `keep` (those run by the script being spelled and by the scripts to be sent
   * before it).
   */
  add(statements: ReadonlyMap<string, { text: string; byText: boolean }>, keep: ReadonlySet<string>): string[] {
    for (const [name, { text, byText }] of statements) (byText ? this.#byText : this.#named).set(name, text);
    const evicted: string[] = [];
    for (const name of this.#byText.keys()) {
      if (this.#byText.size - evicted.length <= this.#limit) break;
      if (!keep.has(name)) evicted.push(name);
    }
    for (const name of evicted) this.#byText.delete(name);
    return evicted;
  }

  /** Forgets statements whose PREPARE was never sent. */
  forget(names: readonly string[]): void {
    for (const name of names) {
      this.#named.delete(name);
      this.#byText.delete(name);
    }
  }
}
