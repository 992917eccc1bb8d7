import { batchedLookup } from './batched-lookup.ts';

/** A lookup that records the keys of each call and answers when released, doubling a key's length. */
function gatedLookup() {
  const calls: string[][] = [];
  const gates: Array<PromiseWithResolvers<void>> = [];
  const lookup = async (keys: readonly string[]) => {
    calls.push([...keys]);
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    await gate.promise;
    if (keys.includes('broken')) throw new Error('lookup failed');
    return new Map(keys.filter((k) => k !== 'absent').map((k) => [k, k.length * 2]));
  };
  return { calls, gates, lookup };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a key asked for at rest is looked up at once, alone; keys asked for meanwhile wait and go together in the next lookup', async () => {
  const { calls, gates, lookup } = gatedLookup();
  const look = batchedLookup(lookup, -1);
  const first = look('a');
  await settle();
  expect(calls).toEqual([['a']]);
  const later = [look('bb'), look('ccc'), look('bb'), look('absent')];
  await settle();
  expect(calls).toEqual([['a']]);
  gates[0]!.resolve();
  expect(await first).toBe(2);
  await settle();
  // One lookup for the four askers, a key asked twice looked up once; a key the lookup leaves out gets `missing`.
  expect(calls).toEqual([['a'], ['bb', 'ccc', 'absent']]);
  gates[1]!.resolve();
  expect(await Promise.all(later)).toEqual([4, 6, 4, -1]);
  // At rest again: the next key goes at once.
  const again = look('dddd');
  await settle();
  expect(calls.at(-1)).toEqual(['dddd']);
  gates[2]!.resolve();
  expect(await again).toBe(8);
});

test('a failed lookup fails the keys it took, and only those: the keys that waited behind it are looked up next', async () => {
  const { calls, gates, lookup } = gatedLookup();
  const look = batchedLookup(lookup, -1);
  const failing = [look('broken'), look('x')].map((p) => p.catch((e: Error) => e.message));
  await settle();
  const waiting = look('yy');
  await settle();
  expect(calls).toEqual([['broken']]);
  gates[0]!.resolve();
  expect(await failing[0]).toBe('lookup failed');
  await settle();
  expect(calls).toEqual([['broken'], ['x', 'yy']]);
  gates[1]!.resolve();
  expect(await failing[1]).toBe(2);
  expect(await waiting).toBe(4);
});
