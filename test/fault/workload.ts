import type { Db } from '../../packages/hub/src/database/connect.ts';
import { unsettled } from './checks.ts';
import type { FleetNode } from './fleet.ts';
import type { Operator } from './operator.ts';
import type { Random } from './random.ts';

/**
 * The operators at work, each at a random pace, until stopped. Now and then all of them pause together for a
 * few seconds: a rollout's batch converges only once its nodes' streams are all where they are wanted (SPEC
 * A10), which a steady stream of writes never allows. Answers the stop, which resolves once each has finished
 * its step.
 */
export function startWorkload(operators: readonly Operator[], rng: Random): () => Promise<void> {
  let working = true;
  let quietUntil = 0;
  const work = operators.map(async (o) => {
    const pace = rng.fork();
    while (working) {
      if (Date.now() >= quietUntil) await o.step();
      if (pace.chance(0.04)) quietUntil = Date.now() + pace.int(2000, 4000);
      await new Promise((r) => setTimeout(r, Math.max(pace.int(20, 250), quietUntil - Date.now())));
    }
  });
  return async () => {
    working = false;
    await Promise.all(work);
  };
}

/**
 * Settling, as an operator would: faults disarmed, crashed agents revived, nodes undrained, rollouts resumed,
 * and any stream blocked by an injected failure written anew (only a new generation resumes it, SPEC C2),
 * again while waiting, since a failure taken before the faults were disarmed may answer late. Then, with the
 * agents reporting, everything settles: converged, superseded, or blocked with its class. Answers what is
 * still unsettled after `withinMs` (nothing, when it settled).
 */
export async function settle(db: Db, nodes: readonly FleetNode[], operators: readonly Operator[], withinMs: number): Promise<string[]> {
  for (const node of nodes) {
    node.sim.faults.length = 0;
    node.sim.revive();
  }
  for (const o of operators) {
    await o.undrainAll();
    await o.resumeRollout();
  }
  const settleBy = Date.now() + withinMs;
  const look = async () => {
    for (const o of operators) await o.rewriteBlocked();
    return unsettled(db);
  };
  let left = await look();
  while (left.length > 0 && Date.now() < settleBy) {
    await new Promise((r) => setTimeout(r, 250));
    left = await look();
  }
  return left;
}
