import type { Placement } from './stream.ts';

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
