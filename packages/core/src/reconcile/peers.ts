import type { NodeState } from '../nodes/node.ts';
import type { NodeRegisteredData } from '../nodes/events.ts';
import { ok, type Result } from '../result.ts';
import type { StreamDeletion } from './deletion.ts';
import { decideDesiredWrite, type DesiredWriteDecision, type LiveIntent } from './desired.ts';
import type { StreamState } from './stream.ts';

/**
 * SPEC E4: a registered node that registers again with another data address has moved its data endpoint.
 * A first address, or none (E1 rejects a split then), is no move.
 */
export function dataAddressMoved(node: NodeState | null, registration: Pick<NodeRegisteredData, 'data_address'>): boolean {
  return node?.dataAddress != null && registration.data_address !== null && node.dataAddress !== registration.data_address;
}

/** A node's share as its newest start of the stream's current generation carried it (E3). */
export interface SentShare {
  nodeId: string;
  peers: ReadonlyArray<{ node_id: string; data_address: string | null }>;
}

/**
 * SPEC E4: a split placement that is to run and whose current generation sent a node a peer's data address
 * that is no longer the peer's gets a new generation, written by the Hub: every node of the placement is
 * started again (a `job_start` of the new generation restarts a running stream) with the addresses as they
 * are now. Level-triggered: a placement whose shares are current, or that no start reached yet (its dispatch
 * reads the addresses then), is left alone, so running it twice writes one generation. Nodes a recovery
 * claim holds wait for it like any automated write (I12).
 */
export function decidePeersMoved(
  current: StreamState | null,
  deletion: StreamDeletion,
  live: readonly LiveIntent[],
  registered: ReadonlySet<string>,
  sent: readonly SentShare[],
  addresses: ReadonlyMap<string, string | null>,
  intentIds: ReadonlyMap<string, string>,
  reported: number,
): Result<DesiredWriteDecision> {
  const none = ok({ events: [], generation: current?.generation ?? 0, nodes: [] });
  if (current === null || deletion !== 'none' || !current.placement.split || current.desiredState !== 'running') return none;
  const stale = sent.some((s) => s.peers.some((p) => p.data_address !== null && addresses.get(p.node_id) != null && addresses.get(p.node_id) !== p.data_address));
  if (!stale) return none;
  return decideDesiredWrite(current, live, registered, { streamId: current.streamId, desired: null, actionId: null, ifMatch: current.generation, overrideHold: false }, intentIds, reported);
}
