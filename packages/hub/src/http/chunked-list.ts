/**
 * A list of an answer that is written as it is read (the unpaged drift, a rollout's targets): its items come a
 * chunk at a time, each written as it comes (sendJson, json-answer.ts), so the answer's rows are never all in
 * the Hub's memory at once; `end` ends the read, once, whether the list was written whole, in part or not at all.
 */
export class ChunkedList<T = unknown> {
  readonly #chunks: AsyncIterator<readonly T[]>;
  readonly #end: (failed: boolean) => Promise<void>;
  #peeked: Promise<IteratorResult<readonly T[]>> | null = null;
  #closed = false;

  /** `end(failed)`: after the last chunk, or when the list is given up; `failed` when reading a chunk failed. */
  constructor(chunks: AsyncIterable<readonly T[]>, end: (failed: boolean) => Promise<void>) {
    this.#chunks = chunks[Symbol.asyncIterator]();
    this.#end = end;
  }

  /** Reads the first chunk now, so that a read that fails at once fails before anything of the answer is sent. */
  async start(): Promise<void> {
    this.#peeked ??= this.#chunks.next();
    await this.#failing(this.#peeked);
  }

  /** The next chunk, or null after the last. */
  async next(): Promise<readonly T[] | null> {
    const next = this.#peeked ?? this.#chunks.next();
    this.#peeked = null;
    const result = await this.#failing(next);
    return result.done ? null : result.value;
  }

  /** A read's result; a read that failed ends the list as failed before its error goes on. */
  async #failing(read: Promise<IteratorResult<readonly T[]>>): Promise<IteratorResult<readonly T[]>> {
    try {
      return await read;
    } catch (e) {
      await this.close(true);
      throw e;
    }
  }

  /** Ends the read (`failed`: after a failure); chunks not read by then never are. Once; later calls do nothing. */
  async close(failed = false): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (!failed) await this.#chunks.return?.();
    } finally {
      await this.#end(failed);
    }
  }

  /** Only sendJson writes such a list: serialised any other way it would be `{}`. */
  toJSON(): never {
    throw new Error('a list read in chunks is written by sendJson, not by JSON.stringify');
  }
}
