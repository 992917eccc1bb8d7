/**
 * Lookups by key, one in flight at a time: keys asked for while a lookup runs wait for it, and the next lookup
 * takes all of them. At rest a key is looked up at once, alone; under load the lookups grow instead of each key
 * paying a round trip of its own. A failed lookup fails the keys it took, and only those.
 */
export function batchedLookup<V>(lookup: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>, missing: V): (key: string) => Promise<V> {
  let waiting = new Map<string, PromiseWithResolvers<V>[]>();
  let busy = false;

  async function drain(): Promise<void> {
    busy = true;
    try {
      while (waiting.size > 0) {
        const taken = waiting;
        waiting = new Map();
        try {
          const found = await lookup([...taken.keys()]);
          for (const [key, askers] of taken) for (const a of askers) a.resolve(found.get(key) ?? missing);
        } catch (e) {
          for (const askers of taken.values()) for (const a of askers) a.reject(e);
        }
      }
    } finally {
      busy = false;
    }
  }

  return (key) => {
    const asker = Promise.withResolvers<V>();
    const askers = waiting.get(key);
    if (askers) askers.push(asker);
    else waiting.set(key, [asker]);
    if (!busy) void drain();
    return asker.promise;
  };
}
