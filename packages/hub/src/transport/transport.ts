/** The two hub-to-node scopes an attempt travels under (docs/agent-protocol.md, "The control endpoint"). */
export type TransportScope = 'pilot_tunnel' | 'node_proxy';

/**
 * How attempts reach agents. `pilot_tunnel`: the agent holds a long poll open and takes its attempts
 * (this Hub's pull channel). `node_proxy`: the Hub calls the agent's control endpoint. Either way the
 * attempt is recorded as dispatched, with its lease, before it leaves the Hub.
 */
export interface Transport {
  /** The channel this transport delivers through; `per_node` for the router that picks one per node. */
  readonly scope: TransportScope | 'per_node';
  /**
   * Attempts were queued for these nodes (by this Hub or another): deliver them, or wake the nodes' polls.
   * A batch of a rollout is offered at once, in a round trip or two whatever its size.
   */
  offer(nodeIds: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}
