/**
 * A seeded pseudo-random sequence (mulberry32): the same seed makes the same choices, so a fault-injection
 * run can be replayed from the seed it printed. Each actor forks its own sequence, so one actor's choices do
 * not depend on how the others interleaved with it.
 */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A non-empty subset of `items` of at most `max` elements, in the items' order. */
  subset<T>(items: readonly T[], max = items.length): T[] {
    const size = this.int(1, Math.min(max, items.length));
    const chosen = new Set<T>();
    while (chosen.size < size) chosen.add(this.pick(items));
    return items.filter((i) => chosen.has(i));
  }

  /** An independent sequence seeded from this one. */
  fork(): Random {
    return new Random(this.int(0, 0xffffffff));
  }
}
