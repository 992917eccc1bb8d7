/**
 * The first key a JSON text names twice in one object, or null. JSON.parse keeps the last one silently, where
 * a proxy, a policy check or another reader in front of the Hub may keep the first: each would act on another
 * request. Keys are compared as decoded (`"a"` and `"\u0061"` are one key). Text that is not JSON is left to
 * the parser: this finds nothing in what it cannot read.
 */
export function duplicateKey(text: string): string | null {
  // One entry per open container: the keys of an object so far, null for an array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return null;
      const keys = open.at(-1);
      if (keyNext && keys) {
        const literal = text.slice(i, end + 1);
        const key = literal.includes('\\') ? decoded(literal) : literal.slice(1, -1);
        if (key === null) return null;
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT) {
      open.push(new Set());
      keyNext = true;
    } else if (c === OPEN_ARRAY) {
      open.push(null);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    } else if (c === COMMA) {
      keyNext = open.at(-1) != null;
    }
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** Where the string opened at `start` closes: the next quote not escaped (an even run of backslashes before it), or -1. */
function closingQuote(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end === -1) return -1;
    let before = end - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((end - 1 - before) % 2 === 0) return end;
  }
}

/** A JSON string literal's text, or null when it is not one. */
function decoded(literal: string): string | null {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}
