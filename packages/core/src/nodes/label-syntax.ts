/**
 * The syntax of a label key and value that an operator sets (SPEC F1: 1-63 characters), the rules of
 * Kubernetes labels: letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit; a key may
 * start with a DNS-style prefix and `/` (`example.com/tier`). So `env=prod,tier=edge` always reads one way as a
 * selector: no key or value holds `=`, `,`, a space or a control character. The Hub, the CLI and the console
 * check the same rules; labels stored by older Hubs under looser rules still replay.
 */
export const MAX_LABEL_TEXT = 63;
export const MAX_LABELS = 16;

const NAME_TEXT = '[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?';
const PREFIX_TEXT = '[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?';
const NAME = new RegExp(`^${NAME_TEXT}$`);
const PREFIX = new RegExp(`^${PREFIX_TEXT}$`);

/** The same rules as patterns, for schemas that document them (OpenAPI); lengths are 1 to MAX_LABEL_TEXT. */
export const LABEL_KEY_PATTERN = `^(?:${PREFIX_TEXT}/)?${NAME_TEXT}$`;
export const LABEL_VALUE_PATTERN = `^${NAME_TEXT}$`;
const NAME_RULE = 'letters, digits, "-", "_" and "." only, starting and ending with a letter or digit';

function lengthProblem(text: string): string | null {
  if (text.length === 0) return `is empty: it needs 1 to ${MAX_LABEL_TEXT} characters`;
  if (text.length > MAX_LABEL_TEXT) return `is ${text.length} characters long: at most ${MAX_LABEL_TEXT}`;
  return null;
}

/** What is wrong with a label key, or null when it is valid. */
export function labelKeyProblem(key: string): string | null {
  const length = lengthProblem(key);
  if (length) return length;
  const slash = key.indexOf('/');
  if (slash === -1) return NAME.test(key) ? null : `takes ${NAME_RULE}`;
  if (!PREFIX.test(key.slice(0, slash))) return 'has a prefix (before "/") that is not lower-case letters, digits, "-" and "."';
  return NAME.test(key.slice(slash + 1)) ? null : `takes, after its prefix, ${NAME_RULE}`;
}

/** What is wrong with a label value, or null when it is valid. */
export function labelValueProblem(value: string): string | null {
  return lengthProblem(value) ?? (NAME.test(value) ? null : `takes ${NAME_RULE}`);
}
