import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Response } from 'express';

/** Items of a large array serialised in one turn of the event loop. */
export const SLICE_ITEMS = 500;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

const isLarge = (v: unknown, slice: number): v is unknown[] => Array.isArray(v) && v.length > slice;

/**
 * `JSON.stringify(value)` in pieces that join to exactly it: an array of more than `slice` items, whole or as a
 * field of an object (`items`, `targets`), in slices of `slice` items; anything else in one piece.
 */
export function* jsonPieces(value: unknown, slice = SLICE_ITEMS): Generator<string> {
  if (isLarge(value, slice)) {
    for (let i = 0; i < value.length; i += slice) {
      // An array's own text without its brackets; a hole or undefined item is `null`, as JSON.stringify writes it.
      const items = JSON.stringify(value.slice(i, i + slice)).slice(1, -1);
      yield (i === 0 ? '[' : ',') + items + (i + slice >= value.length ? ']' : '');
    }
    return;
  }
  if (isPlainObject(value) && Object.values(value).some((v) => isLarge(v, slice))) {
    let pending = '{';
    let first = true;
    for (const [key, field] of Object.entries(value)) {
      const large = isLarge(field, slice);
      const text = large ? '' : JSON.stringify(field);
      // A field JSON.stringify leaves out (undefined, a function, a symbol) is left out here too.
      if (text === undefined) continue;
      pending += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
      if (!large) continue;
      const slices = jsonPieces(field, slice);
      yield pending + slices.next().value!;
      yield* slices;
      pending = '';
    }
    yield `${pending}}`;
    return;
  }
  yield JSON.stringify(value);
}

/**
 * Answers `body` as JSON. A body holding a large array (a rollout's 10,000 targets, the unpaged drift) is
 * written a slice at a time, each in a turn of its own, so that other requests (the fleet's reports) are
 * served between slices instead of waiting for the whole answer to be serialised; it goes out chunked, without
 * a Content-Length. Any other body is sent whole, as before.
 */
export async function sendJson(res: Response, status: number, body: unknown): Promise<void> {
  const pieces = jsonPieces(body);
  const first = pieces.next();
  const second = pieces.next();
  res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
  if (second.done) {
    res.send(first.value ?? '');
    return;
  }
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  res.write(first.value!);
  res.write(second.value);
  for (const piece of pieces) {
    await nextTurn();
    // The caller went away: the rest reaches no one.
    if (res.destroyed) return;
    res.write(piece);
  }
  res.end();
}
