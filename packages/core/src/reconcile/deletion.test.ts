import { given } from '../../../../test/support/decider.ts';
import { aLiveIntent } from '../../../../test/support/domain.ts';
import { decideDeleteStream, decideRemoveStream, refuseDuringDeletion } from './deletion.ts';
import type { StreamState } from './stream.ts';

const stream: StreamState = { streamId: 's1', generation: 3, desiredState: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1', 'edge-2'], split: false }, actionId: null };
const live = (intentId: string, nodeId: string) => aLiveIntent({ intentId, nodeId, generation: 4, desiredState: 'stopped' });
const ids = new Map([['edge-1', 'in-1'], ['edge-2', 'in-2']]);
const registered = new Set(['edge-1', 'edge-2']);
const opened = (intentId: string, nodeId: string) => ({
  streamId: `intent:${intentId}`,
  type: 'IntentOpened' as const,
  data: { intent_id: intentId, kind: 'lifecycle' as const, stream_id: 's1', node_id: nodeId, generation: 4, desired_state: 'stopped' as const, action_id: null, config_version: null, rollout_id: null, recovery_ref: null },
});

test('K4 a deletion is a new generation wanting the stream stopped on every node, and the request to remove it', () => {
  given(stream)
    .when((s) => decideDeleteStream(s, 'none', [], registered, { streamId: 's1', ifMatch: 3 }, ids, 0))
    .then([
      { streamId: 'stream:s1', type: 'StreamDesired', data: { stream_id: 's1', generation: 4, desired_state: 'stopped', spec: { command: 'sleep' }, placement: stream.placement, action_id: null } },
      opened('in-1', 'edge-1'),
      opened('in-2', 'edge-2'),
      { streamId: 'stream:s1', type: 'StreamDeletionRequested', data: { stream_id: 's1', generation: 4 } },
    ]);
});

test('K4 A3 a deletion under If-Match of another generation is refused; a second deletion records nothing; a removed stream is not found', () => {
  given(stream).when((s) => decideDeleteStream(s, 'none', [], registered, { streamId: 's1', ifMatch: 2 }, ids, 0)).thenFails('generation_conflict', { stream_id: 's1', generation: 3 });
  given(stream).when((s) => decideDeleteStream(s, 'deleting', [], registered, { streamId: 's1', ifMatch: null }, ids, 0)).then([]);
  given(stream).when((s) => decideDeleteStream(s, 'removed', [], registered, { streamId: 's1', ifMatch: null }, ids, 0)).thenFails('stream_not_found');
  given(null).when((s) => decideDeleteStream(s, 'none', [], registered, { streamId: 's1', ifMatch: null }, ids, 0)).thenFails('stream_not_found');
});

test('K4 K5 a stream being deleted takes no write; a removed one takes a PUT but no action', () => {
  const put = { streamId: 's1', desired: { desired_state: 'running' as const, spec: {}, placement: stream.placement }, actionId: null, ifMatch: null, overrideHold: false };
  given('deleting' as const).when((d) => refuseDuringDeletion(d, put) as never).thenFails('stream_deleting', { stream_id: 's1' });
  expect(refuseDuringDeletion('removed', put).ok).toBe(true);
  expect(refuseDuringDeletion('removed', { ...put, desired: null, actionId: 'ac-1' })).toMatchObject({ ok: false, error: { code: 'stream_not_found' } });
});

test('K4 a deleting stream is removed once no registered node has a live intent of it; intents left on unregistered nodes go with it', () => {
  const at4 = { streamId: 's1', generation: 4 };
  given(at4).when((s) => decideRemoveStream(s, 'deleting', [live('in-1', 'edge-1')], registered)).then([]);
  given(at4)
    .when((s) => decideRemoveStream(s, 'deleting', [live('in-9', 'edge-9')], registered))
    .then([
      { streamId: 'stream:s1', type: 'StreamRemoved', data: { stream_id: 's1', generation: 4 } },
      { streamId: 'intent:in-9', type: 'IntentSuperseded', data: { intent_id: 'in-9', superseded_by: null, withdrawn_attempts: [] } },
    ]);
  given(at4).when((s) => decideRemoveStream(s, 'none', [], registered)).then([]);
  given(at4).when((s) => decideRemoveStream(s, 'removed', [], registered)).then([]);
});
