import type { Hub } from '../../../packages/hub/src/hub.ts';

/**
 * Tells the benchmark when the Hub holds a node's long poll: `onHeld(node)` runs as the Hub starts waiting
 * on the pull transport for it, and the function it answers (if any) when the wait ends. The wait itself
 * is the Hub's own, with the same arguments.
 */
export function watchHeldPolls(hub: Hub, onHeld: (node: string) => (() => void) | null): void {
  const transport = hub.context.transport;
  const watch = transport.watch.bind(transport);
  transport.watch = (node) => {
    const watching = watch(node);
    return {
      ...watching,
      wait(ms, signal) {
        const waiting = watching.wait(ms, signal); // its waiter is registered synchronously
        const released = onHeld(node);
        return released ? waiting.finally(released) : waiting;
      },
    };
  };
}

/** Counts the long polls the Hub holds right now (waiting on the pull transport): call the answer to read it. */
export function heldPollCount(hub: Hub): () => number {
  let held = 0;
  watchHeldPolls(hub, () => {
    held++;
    return () => void held--;
  });
  return () => held;
}
