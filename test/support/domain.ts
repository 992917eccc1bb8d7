import type { LiveIntent, NodeState } from '@fleetplane/core';

/** A registered, active node as decisions read it, with `overrides`. */
export const aNode = (overrides: Partial<NodeState> = {}): NodeState => ({
  nodeId: 'edge-1',
  labels: {},
  capabilities: [],
  dataAddress: null,
  controlAddress: null,
  agentVersion: '1.0',
  bootId: 'b1',
  maintenance: 'active',
  modeOverride: null,
  ...overrides,
});

/** A live lifecycle intent of stream s1 on edge-1 as decisions read it, with `overrides`. */
export const aLiveIntent = (overrides: Partial<LiveIntent> = {}): LiveIntent => ({
  intentId: 'in-1',
  kind: 'lifecycle',
  streamId: 's1',
  nodeId: 'edge-1',
  generation: 2,
  desiredState: 'running',
  actionId: null,
  configVersion: null,
  rolloutId: null,
  recoveryRef: null,
  state: 'converging',
  retryCount: 0,
  nextRetryAt: null,
  awaiting: null,
  openedAt: new Date('2026-12-01T10:00:00Z'),
  overridesHold: false,
  queuedAttempts: [],
  ...overrides,
});
