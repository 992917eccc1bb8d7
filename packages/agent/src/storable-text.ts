import { MAX_AGENT_TEXT } from '@fleetplane/core';

/**
 * An agent's free text (a stream's error, a result's message), as the Hub stores it. It comes from processes
 * and the OS, which may write any bytes; the Hub refuses NUL, lone surrogates and text over MAX_AGENT_TEXT
 * characters, and a refused result or report would be lost for one stray byte. NUL and lone surrogates
 * become U+FFFD; longer text is cut, ending in "…".
 */
export function storableText(text: string | null): string | null {
  if (text === null) return null;
  const clean = text.toWellFormed().replaceAll('\0', '\ufffd');
  if (clean.length <= MAX_AGENT_TEXT) return clean;
  const cut = clean.slice(0, MAX_AGENT_TEXT - 1);
  // A pair cut in two would leave a lone surrogate.
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
