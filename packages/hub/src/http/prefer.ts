/**
 * Whether a request's `Prefer` header (RFC 7240) asks for `return=minimal`: an answer without the resource's
 * representation. Preferences are comma-separated, each `name[=value]` with optional `;` parameters; names
 * and these values are case-insensitive and a value may be quoted. Anything else in the header is ignored,
 * as the RFC asks of preferences a server does not know.
 */
export function prefersMinimal(prefer: string | undefined): boolean {
  if (prefer === undefined) return false;
  return prefer.split(',').some((preference) => {
    const [name = '', value = ''] = preference.split(';')[0]!.split('=');
    return name.trim().toLowerCase() === 'return' && value.trim().replace(/^"(.*)"$/, '$1').toLowerCase() === 'minimal';
  });
}
