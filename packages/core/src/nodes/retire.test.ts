import { given } from '../../../../test/support/decider.ts';
import { aLiveIntent, aNode } from '../../../../test/support/domain.ts';
import { decideRetire, type RetiringNode } from './retire.ts';

const node = aNode();
const intent = aLiveIntent({ queuedAttempts: ['at-1'] });
const idle: RetiringNode = { node, retiredAt: null, live: [], rollouts: [], claimed: [] };
const retired = { streamId: 'node:edge-1', type: 'NodeRetired' as const };

test('K1 a node without live intents or running rollouts is retired, recorded once', () => {
  given(idle)
    .when((s) => decideRetire(s, 'edge-1', false))
    .then([{ ...retired, data: { node_id: 'edge-1', forced: false, superseded_intents: [], rollouts: [] } }]);
});

test('K1 a node in a running rollout, or with live intents, is refused with a stable code unless forced', () => {
  given({ ...idle, live: [intent] }).when((s) => decideRetire(s, 'edge-1', false)).thenFails('node_has_live_intents', { node_id: 'edge-1', intents: ['in-1'] });
  given({ ...idle, live: [intent], rollouts: ['ro-1'] }).when((s) => decideRetire(s, 'edge-1', false)).thenFails('node_in_running_rollout', { node_id: 'edge-1', rollouts: ['ro-1'] });
});

test('K2 forced, retirement supersedes the live intents (withdrawing queued attempts) and removes the node from its rollouts', () => {
  given({ ...idle, live: [intent], rollouts: ['ro-1'] })
    .when((s) => decideRetire(s, 'edge-1', true))
    .then([
      { streamId: 'intent:in-1', type: 'IntentSuperseded', data: { intent_id: 'in-1', superseded_by: null, withdrawn_attempts: ['at-1'] } },
      { streamId: 'rollout:ro-1', type: 'RolloutTargetRemoved', data: { rollout_id: 'ro-1', node_id: 'edge-1', reason: 'node_retired' } },
      { ...retired, data: { node_id: 'edge-1', forced: true, superseded_intents: ['in-1'], rollouts: ['ro-1'] } },
    ]);
});

test('K1 I5 a target of an ended rollout whose claim holds it leaves with its node, forced or not: nothing could retire the claim after', () => {
  given({ ...idle, claimed: ['ro-2'] })
    .when((s) => decideRetire(s, 'edge-1', false))
    .then([
      { streamId: 'rollout:ro-2', type: 'RolloutTargetRemoved', data: { rollout_id: 'ro-2', node_id: 'edge-1', reason: 'node_retired' } },
      { ...retired, data: { node_id: 'edge-1', forced: false, superseded_intents: [], rollouts: ['ro-2'] } },
    ]);
});

test('K1 a retired or unknown node is not found; the refusal says when it was retired', () => {
  given({ ...idle, node: null, retiredAt: new Date('2026-12-01T11:00:00Z') })
    .when((s) => decideRetire(s, 'edge-1', true))
    .thenFails('node_not_found', { node_id: 'edge-1', retired_at: '2026-12-01T11:00:00.000Z' });
  given({ ...idle, node: null }).when((s) => decideRetire(s, 'edge-9', false)).thenFails('node_not_found', { node_id: 'edge-9' });
});
