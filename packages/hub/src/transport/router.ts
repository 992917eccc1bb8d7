import type { Db } from '../database/connect.ts';
import { controlAddresses, type NodeProxyTransport } from './node-proxy.ts';
import type { PullTransport } from './pull.ts';
import type { Transport, TransportScope } from './transport.ts';

export interface RoutedTransport extends Transport {
  readonly scope: 'per_node';
  /** The long poll's watch of its node (the pull channel): every node may still poll. */
  watch: PullTransport['watch'];
  watched: PullTransport['watched'];
  /** The channel the node's attempts are offered through now. */
  scopeFor(nodeId: string): Promise<TransportScope>;
}

/**
 * Picks a channel per node at every offer: a node that registered a `control_address` and is not offline (seen
 * after `offlineBefore()`) is pushed to (`node_proxy`) when this Hub holds a hub-to-node token; every other
 * node's long poll is woken (`pilot_tunnel`). Both are read from the nodes projection, so every Hub decides alike.
 */
export function routeTransports(db: Db, pull: PullTransport, push: NodeProxyTransport | null, offlineBefore: () => Date): RoutedTransport {
  const addresses = async (nodeIds: readonly string[]): Promise<Map<string, string>> =>
    push === null ? new Map() : controlAddresses(db, nodeIds, offlineBefore());

  return {
    scope: 'per_node',
    watch: (nodeId) => pull.watch(nodeId),
    watched: () => pull.watched(),
    async scopeFor(nodeId) {
      return (await addresses([nodeId])).has(nodeId) ? 'node_proxy' : 'pilot_tunnel';
    },
    async offer(nodeIds) {
      const pushed = await addresses(nodeIds);
      await Promise.all([
        ...[...pushed].map(([nodeId, address]) => push!.deliver(nodeId, address)),
        pull.offer(nodeIds.filter((n) => !pushed.has(n))),
      ]);
    },
    async stop() {
      await push?.stop();
      await pull.stop();
    },
  };
}
