/**
 * Whether `text` is a Hub's address as agents and the CLI take it: an http:// or https:// URL. Checked before
 * any request, since a malformed one would otherwise be retried as a Hub out of reach.
 */
export function isHubAddress(text: string | undefined): boolean {
  if (text === undefined || !URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}
