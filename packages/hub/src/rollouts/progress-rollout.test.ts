import { NewConfigVersion, Targets } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { testConfig } from '../../../../test/support/hub.ts';
import { mustRun, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import type { Actor } from '../commands/pipeline.ts';
import { createConfigVersion } from '../configuration/create-version.ts';
import { reconcileQueues } from '../reconcile/queues.ts';
import { createRollout } from './create-rollout.ts';
import { progressRollout } from './progress-rollout.ts';
import { rolloutQueues } from './queues.ts';

// A rollout pass (SPEC G1, G3) runs after nearly every report of a batch; the one that starts the next batch
// is on the rollout's path: it reads what it decides on in as few round trips as its reads depend on each other.
const suite = pipelineSuite([...reconcileQueues, ...rolloutQueues]);
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };
const hub: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId: 'corr-pass' };

test('G1 G3 a pass reads the rollout, then its near targets, then the next batch whole (nodes and intents locked, mode, holds, version) in one round trip', async () => {
  const nodes = ['g-1', 'g-2', 'g-3', 'g-4'];
  for (const node of nodes) await registerAgent(suite.deps, node);
  const { configVersion } = await mustRun(suite.deps, operator, createConfigVersion(NewConfigVersion.parse({ content: 'batch: 2', format: 'text' })));
  const request = { kind: 'rollout' as const, configVersion, targets: Targets.parse({ nodes }), batchSize: 2, approvalId: null };
  const { rolloutId } = await mustRun(suite.deps, operator, createRollout(request, false));

  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    // The first batch has not converged: the pass reads the next one and starts nothing.
    const progressed = await mustRun({ ...suite.deps, db }, hub, progressRollout(rolloutId, 'configuration', testConfig(4)));
    expect(progressed).toEqual({ started: [], heldBy: [], deliverable: [] });
  });
  // BEGIN with the rollout's row locked; its current and next batches' targets (bound, by the extended
  // protocol); the next batch's reads; COMMIT.
  expect(roundTrips).toEqual(['simple', 'extended', 'simple', 'simple']);
});
