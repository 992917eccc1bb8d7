/**
 * Bodies with a `__proto__` key are refused: zod drops such keys silently, so a label or a selector pair
 * would vanish (a selector then matching more nodes) while the request answered success.
 */

/** A raw byte search, cheap on every request, marks a body that may carry one. */
export function mayHaveProtoKey(body: Buffer): boolean {
  return body.includes('"__proto__"');
}

/** Whether a marked body really has the key, at any depth (the mark also catches it as a string value). */
export function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (typeof value !== 'object' || value === null) return false;
  return Object.hasOwn(value, '__proto__') || Object.values(value).some(hasProtoKey);
}
