import { createHash, createHmac } from 'node:crypto';

/**
 * The credential the Hub presents to one node's control endpoint: an HMAC of the node id under the
 * hub-to-node token. A node learns only its own; one that registers an address it controls (a stolen agent
 * credential) captures nothing it could present to any other node.
 */
export const nodeCredential = (token: string, nodeId: string): string => createHmac('sha256', token).update(nodeId).digest('hex');

/** What that node's agent is configured with (`--hub-credential-sha256`): it never holds the credential itself. */
export const nodeCredentialSha256 = (token: string, nodeId: string): string => createHash('sha256').update(nodeCredential(token, nodeId)).digest('hex');
