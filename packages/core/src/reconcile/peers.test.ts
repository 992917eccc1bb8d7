import { given } from '../../../../test/support/decider.ts';
import { aLiveIntent, aNode } from '../../../../test/support/domain.ts';
import { dataAddressMoved, decidePeersMoved, type SentShare } from './peers.ts';
import type { StreamState } from './stream.ts';

const stream: StreamState = { streamId: 's1', generation: 3, desiredState: 'running', spec: { command: 'shuffle' }, placement: { nodes: ['edge-1', 'edge-2'], split: true }, actionId: null };
const registered = new Set(['edge-1', 'edge-2']);
const ids = new Map([['edge-1', 'in-1'], ['edge-2', 'in-2']]);
const live = [aLiveIntent({ intentId: 'in-a', nodeId: 'edge-1', generation: 3 }), aLiveIntent({ intentId: 'in-b', nodeId: 'edge-2', generation: 3 })];
const peers = [{ node_id: 'edge-1', data_address: '10.0.0.1:7000' }, { node_id: 'edge-2', data_address: '10.0.0.2:7000' }];
const sent: SentShare[] = [{ nodeId: 'edge-1', peers }, { nodeId: 'edge-2', peers }];
const now = new Map([['edge-1', '10.0.0.1:7000'], ['edge-2', '10.0.0.2:7000']]);
const moved = new Map([...now, ['edge-2', '10.0.0.9:7000']]);
const decide = (s: StreamState | null, addresses: ReadonlyMap<string, string | null> = moved, shares = sent, deletion: 'none' | 'deleting' = 'none') => decidePeersMoved(s, deletion, live, registered, shares, addresses, ids, 0);

test('E4 a data address is moved only when a registered node had one and registers another', () => {
  expect(dataAddressMoved(aNode({ dataAddress: '10.0.0.1:7000' }), { data_address: '10.0.0.1:7001' })).toBe(true);
  expect(dataAddressMoved(aNode({ dataAddress: '10.0.0.1:7000' }), { data_address: '10.0.0.1:7000' })).toBe(false);
  expect(dataAddressMoved(aNode({ dataAddress: null }), { data_address: '10.0.0.1:7000' })).toBe(false);
  expect(dataAddressMoved(aNode({ dataAddress: '10.0.0.1:7000' }), { data_address: null })).toBe(false);
  expect(dataAddressMoved(null, { data_address: '10.0.0.1:7000' })).toBe(false);
});

test('E4 a running split whose nodes were sent a peer\'s old data address gets a new generation, written like a desired write of its current state', () => {
  const decided = decide(stream);
  expect(decided).toMatchObject({ ok: true, value: { generation: 4, nodes: ['edge-1', 'edge-2'] } });
  if (!decided.ok) return;
  expect(decided.value.events.map((e) => [e.type, e.streamId])).toEqual([
    ['StreamDesired', 'stream:s1'],
    ['IntentOpened', 'intent:in-1'],
    ['IntentOpened', 'intent:in-2'],
    ['IntentSuperseded', 'intent:in-a'],
    ['IntentSuperseded', 'intent:in-b'],
  ]);
  expect(decided.value.events[0]!.data).toEqual({ stream_id: 's1', generation: 4, desired_state: 'running', spec: stream.spec, placement: stream.placement, action_id: null });
});

test('E4 nothing to do: shares that are current, none sent yet, a peer with no address now, a stopped, unsplit, deleting or missing stream', () => {
  given(stream).when((s) => decide(s, now)).then([]);
  given(stream).when((s) => decide(s, moved, [])).then([]);
  given(stream).when((s) => decide(s, new Map([...now, ['edge-2', null]]))).then([]);
  given({ ...stream, desiredState: 'stopped' as const }).when((s) => decide(s)).then([]);
  given({ ...stream, placement: { ...stream.placement, split: false } }).when((s) => decide(s)).then([]);
  given(stream).when((s) => decide(s, moved, sent, 'deleting')).then([]);
  given(null).when((s) => decide(s)).then([]);
});
