/** A node's control address as its agent registers it (agent-protocol.md): `host:port` or `https://host:port`. */
export const CONTROL_ADDRESS_PATTERN = /^(?:https:\/\/)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/;

/** The URL the Hub pushes to at a control address: https when it says so, else http. */
export function controlEndpoint(controlAddress: string): string {
  return controlAddress.startsWith('https://') ? controlAddress : `http://${controlAddress}`;
}

/**
 * Whether the Hub can push to a control address: the pattern, a port of 1-65535 and a host a URL holds (an
 * IPv4 address's parts at most 255, brackets around IPv6 only). Any other would be taken, and every push to it
 * would fail before connecting, leaving its attempt dispatched and then ambiguous.
 */
export function isPushableAddress(address: string): boolean {
  if (!CONTROL_ADDRESS_PATTERN.test(address)) return false;
  const port = Number(/:(\d+)$/.exec(address)![1]);
  return port >= 1 && port <= 65_535 && URL.canParse(controlEndpoint(address));
}
