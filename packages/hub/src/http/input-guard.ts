/**
 * What every request's input must be before a schema reads it or anything stores it. Text PostgreSQL can
 * store: no NUL (text and jsonb refuse U+0000) and well-formed Unicode (a lone surrogate has no UTF-8). A
 * body no deeper than MAX_DEPTH, so nothing that recurses over it (a size check's JSON.stringify, the
 * idempotency hash, the driver) can overflow the stack. And no "__proto__" key: zod drops such keys silently,
 * so a label or a selector pair would vanish (a selector then matching more nodes) while the request
 * answered success. The checks read the parsed value, so every spelling of a key or a text is judged as the
 * Hub will hold it, whatever escapes, charset or framing carried it.
 */

/** JSON objects and arrays nested deeper than this are refused: the API's own shapes nest at most 4 deep, the rest is room for a stream spec's free-form keys. */
export const MAX_DEPTH = 64;

/** Why PostgreSQL cannot store `text`, or null when it can. */
export function textFault(text: string): string | null {
  if (text.isWellFormed() && !text.includes('\0')) return null;
  return text.includes('\0') ? 'holds a NUL character (U+0000), which cannot be stored' : 'holds a lone surrogate (not valid Unicode), which cannot be stored';
}

/** Where in a body it fails, as zod names a path (`labels.env`, `streams.0.error`), and why. */
export interface BodyFault {
  path: string;
  message: string;
}

interface Level {
  value: object;
  depth: number;
  parent: Level | null;
  key: string | number;
}

/**
 * The first fault of a parsed JSON body, or null. One iterative walk checks depth, keys and text together:
 * it runs on every request that has a body, an agent's report included.
 */
export function bodyFault(body: unknown): BodyFault | null {
  // The JSON readers take only an object or an array: anything else is left to the schemas.
  if (typeof body !== 'object' || body === null) return null;
  const pending: Level[] = [{ value: body, depth: 1, parent: null, key: '' }];
  while (pending.length > 0) {
    const level = pending.pop()!;
    if (level.depth > MAX_DEPTH) return faultAt(level.parent!, level.key, `nested deeper than ${MAX_DEPTH} levels`);
    const container = level.value;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const fault = visit(container[i], level, i, pending);
        if (fault) return fault;
      }
      continue;
    }
    for (const key of Object.keys(container)) {
      if (key === '__proto__') return faultAt(level, null, '"__proto__" cannot be a key');
      const keyFault = textFault(key);
      if (keyFault) return faultAt(level, null, `a key ${keyFault}`);
      const fault = visit((container as Record<string, unknown>)[key], level, key, pending);
      if (fault) return fault;
    }
  }
  return null;
}

/** Checks a text value at once; queues a container to be walked. */
function visit(value: unknown, parent: Level, key: string | number, pending: Level[]): BodyFault | null {
  if (typeof value === 'string') return faultAt(parent, key, textFault(value));
  if (typeof value === 'object' && value !== null) pending.push({ value, depth: parent.depth + 1, parent, key });
  return null;
}

/** The fault, if any, at `key` of `level` (null: at the level itself), with its path from the body's root. */
function faultAt(level: Level, key: string | number | null, message: string | null): BodyFault | null {
  if (message === null) return null;
  const path: (string | number)[] = key === null ? [] : [key];
  for (let l: Level | null = level; l.parent !== null; l = l.parent) path.unshift(l.key);
  return { path: path.join('.'), message };
}
