import type { HubError } from './hub-client.ts';

/**
 * The Hub's refusals that asking again cannot change (agent-protocol.md, "Errors and retries"), each with its
 * status and the line the agent stops with: what the operator has to change.
 */
const LASTING: Record<string, { status: number; line: string }> = {
  node_retired: {
    status: 403,
    line: 'the Hub retired this node: its credential is refused for good; the agent stops (the machine joins again only as a new node)',
  },
  unauthenticated: {
    status: 401,
    line: "the Hub does not know this agent's token; the agent stops (give it the token of the node's agent credential, or add the credential to the Hub and reload it)",
  },
  forbidden: {
    status: 403,
    line: "the Hub refuses this agent's token on the agent routes: it is not an agent credential; the agent stops (give it the node's agent token)",
  },
  node_mismatch: {
    status: 403,
    line: "the Hub refuses this agent's token for its --node-id: the credential is bound to another node; the agent stops (give it this node's token, or the node id its credential names)",
  },
};

/**
 * The line to stop with when `e` is a refusal that retrying cannot change, else null. By code and status both:
 * a proxy's bare 401 or 403 is not the Hub's word.
 */
export function lastingRefusal(e: HubError): string | null {
  if (!Object.hasOwn(LASTING, e.code)) return null;
  const { status, line } = LASTING[e.code]!;
  return e.status === status ? line : null;
}
