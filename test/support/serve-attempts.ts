import type { TestAgent } from './fleet.ts';

/** An attempt's failure result, or null to apply it and answer success. */
export type Verdict = (attempt: { stream_id: string | null; generation: number }) => Record<string, unknown> | null;

/**
 * Keeps a simulated node converging while a browser test watches: takes its attempts by long poll, applies
 * each, answers success and reports; or answers what `verdict` says instead. Stops when `stop()` is called.
 */
export function serveAttempts(agent: TestAgent, verdict: Verdict = () => null): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const attempt of await agent.attempts(1)) {
        const failed = verdict(attempt);
        if (failed) {
          await agent.result(attempt.attempt_id, { outcome: 'failed', generation: attempt.generation, ...failed });
          continue;
        }
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
