import type { TestAgent } from './fleet.ts';

/**
 * Keeps a simulated node converging while a browser test watches: takes its attempts by long poll, applies
 * each, answers success and reports. Stops when `stop()` is called.
 */
export function serveAttempts(agent: TestAgent): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const attempt of await agent.attempts(1)) {
        agent.apply(attempt);
        await agent.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation });
        await agent.report();
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
