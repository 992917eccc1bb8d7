import { given } from '../../../../test/support/decider.ts';
import { decideRegister, decideReplaceLabels } from './decide.ts';
import { decideGlobalMode, decideMaintenance, decideNodeMode } from './maintenance.ts';
import { aNode } from '../../../../test/support/domain.ts';

const registration = { node_id: 'edge-1', boot_id: 'b1', agent_version: '1.0', capabilities: ['exec', 'exec'], data_address: null, control_address: null };
const node = aNode({ labels: { env: 'prod' }, capabilities: ['exec'] });

test('F2 a first registration records the node, its capabilities once each and sorted', () => {
  given(null)
    .when((n) => decideRegister(n, { ...registration, capabilities: ['shuffle', 'exec', 'exec'] }))
    .then([{ streamId: 'node:edge-1', type: 'NodeRegistered', data: { ...registration, capabilities: ['exec', 'shuffle'] } }]);
});

test('F2 repeating the current registration records nothing; a new boot records it again', () => {
  given(node).when((n) => decideRegister(n, registration)).then([]);
  given(node)
    .when((n) => decideRegister(n, { ...registration, boot_id: 'b2' }))
    .then([{ streamId: 'node:edge-1', type: 'NodeRegistered', data: { ...registration, boot_id: 'b2', capabilities: ['exec'] } }]);
});

test('F1 labels are replaced whole, recorded with the map before and after in key order; an unknown node is refused', () => {
  given(node)
    .when((n) => decideReplaceLabels(n, 'edge-1', { zone: 'b', app: 'x' }))
    .then([{ streamId: 'node:edge-1', type: 'NodeLabelsReplaced', data: { node_id: 'edge-1', before: { env: 'prod' }, after: { app: 'x', zone: 'b' } } }]);
  given(null).when((n) => decideReplaceLabels(n, 'edge-9', {})).thenFails('node_not_found', { node_id: 'edge-9' });
});

test('D1 a drain is recorded once: draining a draining node records nothing, undraining it records NodeUndrained', () => {
  given(node).when((n) => decideMaintenance(n, 'edge-1', true)).then([{ streamId: 'node:edge-1', type: 'NodeDrained', data: { node_id: 'edge-1' } }]);
  const draining = { ...node, maintenance: 'draining' as const };
  given(draining).when((n) => decideMaintenance(n, 'edge-1', true)).then([]);
  given(draining).when((n) => decideMaintenance(n, 'edge-1', false)).then([{ streamId: 'node:edge-1', type: 'NodeUndrained', data: { node_id: 'edge-1' } }]);
  given(null).when((n) => decideMaintenance(n, 'edge-9', true)).thenFails('node_not_found');
});

test('B3 a node mode is recorded with the one it replaced; the same mode records nothing', () => {
  given(node)
    .when((n) => decideNodeMode(n, 'edge-1', 'observe'))
    .then([{ streamId: 'node:edge-1', type: 'NodeModeSet', data: { node_id: 'edge-1', mode: 'observe', previous: null } }]);
  given({ ...node, modeOverride: 'observe' as const }).when((n) => decideNodeMode(n, 'edge-1', 'observe')).then([]);
  given(null).when((n) => decideNodeMode(n, 'edge-9', null)).thenFails('node_not_found');
});

test('B3 the global mode is recorded with the one it replaced; the same mode records nothing', () => {
  given('lifecycle' as const)
    .when((current) => decideGlobalMode(current, 'configuration'))
    .then([{ streamId: 'settings:reconciliation', type: 'ReconciliationModeSet', data: { mode: 'configuration', previous: 'lifecycle' } }]);
  given('observe' as const).when((current) => decideGlobalMode(current, 'observe')).then([]);
});
