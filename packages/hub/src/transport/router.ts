import type { Db } from '../database/connect.ts';
import type { NodeProxyTransport } from './node-proxy.ts';
import type { PullTransport } from './pull.ts';
import type { Transport, TransportScope } from './transport.ts';

export interface RoutedTransport extends Transport {
  readonly scope: 'per_node';
  /** The long poll's wait (the pull channel): every node may still poll. */
  wait: PullTransport['wait'];
  offers: PullTransport['offers'];
  /** The channel the node's attempts are offered through now. */
  scopeFor(nodeId: string): Promise<TransportScope>;
}

/**
 * Picks a channel per node at every offer: a node that registered a `control_address` is pushed to
 * (`node_proxy`) when this Hub holds a hub-to-node token; every other node's long poll is woken
 * (`pilot_tunnel`). The address is read from the nodes projection, so every Hub decides alike.
 */
export function routeTransports(db: Db, pull: PullTransport, push: NodeProxyTransport | null): RoutedTransport {
  const controlAddress = async (nodeId: string): Promise<string | null> =>
    push === null
      ? null
      : ((await db.selectFrom('nodes').select('control_address').where('node_id', '=', nodeId).executeTakeFirst())?.control_address ?? null);

  return {
    scope: 'per_node',
    wait: (nodeId, ms, signal, since) => pull.wait(nodeId, ms, signal, since),
    offers: (nodeId) => pull.offers(nodeId),
    async scopeFor(nodeId) {
      return (await controlAddress(nodeId)) ? 'node_proxy' : 'pilot_tunnel';
    },
    async offer(nodeId) {
      const address = await controlAddress(nodeId);
      if (push !== null && address) await push.deliver(nodeId, address);
      else await pull.offer(nodeId);
    },
    async stop() {
      await push?.stop();
      await pull.stop();
    },
  };
}
