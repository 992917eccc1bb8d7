import type { FleetEvent } from '../events/fleet-event.ts';
import { intentStream, type IntentBlockedData } from './events.ts';
import type { Placement, PlacementShare } from './stream.ts';

export interface PlacementPeer {
  nodeId: string;
  capabilities: string[];
  dataAddress: string | null;
}

export type PlacementCheck = { ok: true } | { ok: false; waiting: string[] } | { ok: false; code: 'placement_rejected'; message: string };

/**
 * SPEC E1: a split placement is dispatched only when every one of its nodes advertises `network_shuffle`
 * and a data address. A node that has not registered yet is waited for; a registered node without them
 * rejects the placement for this generation.
 */
export function checkPlacement(placement: Placement, peers: ReadonlyMap<string, PlacementPeer | null>): PlacementCheck {
  if (!placement.split) return { ok: true };
  const waiting = placement.nodes.filter((n) => !peers.get(n));
  const lacking = placement.nodes
    .map((n) => peers.get(n))
    .filter((p): p is PlacementPeer => !!p && (!p.capabilities.includes('network_shuffle') || !p.dataAddress));
  if (lacking.length > 0) {
    const names = lacking.map((p) => p.nodeId).join(', ');
    return { ok: false, code: 'placement_rejected', message: `split placement needs network_shuffle and a data address on every node; missing on ${names}` };
  }
  return waiting.length > 0 ? { ok: false, waiting } : { ok: true };
}

/**
 * SPEC E1, E2: a rejected split placement blocks its generation's intents that want the stream running (a
 * stop needs no shuffle, and is never held by the placement it leaves). Their queued attempts are withdrawn.
 */
export function blockPlacement(intentIds: readonly string[], rejection: { code: 'placement_rejected'; message: string }): FleetEvent[] {
  return intentIds.map((intentId) => {
    const data: IntentBlockedData = { intent_id: intentId, failure_class: 'placement', code: rejection.code, message: rejection.message };
    return { streamId: intentStream(intentId), type: 'IntentBlocked', data };
  });
}

/**
 * SPEC E3: what a node of a split placement needs to exchange data with the others: its index and the
 * count, and each peer's data address as the Hub knows it now. Null for a placement that is not split.
 */
export function placementShare(placement: Placement, nodeId: string, peers: ReadonlyMap<string, PlacementPeer | null>): PlacementShare | null {
  if (!placement.split) return null;
  return {
    index: placement.nodes.indexOf(nodeId),
    count: placement.nodes.length,
    peers: placement.nodes.map((n) => ({ node_id: n, data_address: peers.get(n)?.dataAddress ?? null })),
  };
}
