import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Response } from 'express';
import { ChunkedList } from './chunked-list.ts';

/** Items of a large array serialised in one turn of the event loop. */
export const SLICE_ITEMS = 500;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

const isLarge = (v: unknown, slice: number): v is unknown[] => Array.isArray(v) && v.length > slice;

/** Written in pieces: a large array, or a list read in chunks. */
const inPieces = (v: unknown, slice: number): boolean => isLarge(v, slice) || v instanceof ChunkedList;

/** A piece of an answer: its text, or a list read in chunks whose items go here (written by sendJson). */
export type Piece = string | ChunkedList;

/**
 * `JSON.stringify(value)` in pieces that join to exactly it: an array of more than `slice` items, whole or as a
 * field of an object (`items`, `targets`), in slices of `slice` items; a ChunkedList there as itself, its
 * items to be written where it stands; anything else in one piece.
 */
export function* jsonPieces(value: unknown, slice = SLICE_ITEMS): Generator<Piece> {
  if (value instanceof ChunkedList) {
    yield value;
    return;
  }
  if (isLarge(value, slice)) {
    for (let i = 0; i < value.length; i += slice) {
      // An array's own text without its brackets; a hole or undefined item is `null`, as JSON.stringify writes it.
      const items = JSON.stringify(value.slice(i, i + slice)).slice(1, -1);
      yield (i === 0 ? '[' : ',') + items + (i + slice >= value.length ? ']' : '');
    }
    return;
  }
  if (isPlainObject(value) && Object.values(value).some((v) => inPieces(v, slice))) {
    let pending = '{';
    let first = true;
    for (const [key, field] of Object.entries(value)) {
      const large = inPieces(field, slice);
      const text = large ? '' : JSON.stringify(field);
      // A field JSON.stringify leaves out (undefined, a function, a symbol) is left out here too.
      if (text === undefined) continue;
      pending += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
      if (!large) continue;
      const slices = jsonPieces(field, slice);
      const head = slices.next().value!;
      if (typeof head === 'string') yield pending + head;
      else yield* [pending, head];
      yield* slices;
      pending = '';
    }
    yield `${pending}}`;
    return;
  }
  yield JSON.stringify(value);
}

/** The lists read in chunks a body holds, whole or as a field: those jsonPieces yields. */
const chunkedLists = (body: unknown): ChunkedList[] =>
  body instanceof ChunkedList ? [body] : isPlainObject(body) ? Object.values(body).filter((v): v is ChunkedList => v instanceof ChunkedList) : [];

/**
 * Answers `body` as JSON. A body holding a large array (a rollout's 10,000 targets) is written a slice at a time,
 * each in a turn of its own, so that other requests (the fleet's reports) are served between slices instead of
 * waiting for the whole answer to be serialised; a body holding a ChunkedList (the unpaged drift) is written a
 * chunk at a time as the chunks are read, its first read before anything is sent, so that a read failing at
 * once is answered as any failure. Either goes out chunked, without a Content-Length; any other body is sent
 * whole. Every ChunkedList of the body is closed once written, or once the answer is given up (HEAD, the caller
 * gone, a failure: after the status was sent, the response can only be cut).
 */
export async function sendJson(res: Response, status: number, body: unknown): Promise<void> {
  const lists = chunkedLists(body);
  try {
    await send(res, status, body, lists);
  } finally {
    await Promise.all(lists.map((list) => list.close()));
  }
}

async function send(res: Response, status: number, body: unknown, lists: readonly ChunkedList[]): Promise<void> {
  const pieces = jsonPieces(body);
  const first = pieces.next();
  const second = pieces.next();
  res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
  if (second.done && !(first.value instanceof ChunkedList)) {
    res.send(first.value ?? '');
    return;
  }
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  // Nothing is sent before: a failure here is answered as any other (the app's error handler sets its own status).
  for (const list of lists) await list.start();
  // The first two pieces go at once; each later one in a turn of its own.
  if (!(await writePiece(res, first.value!, false))) return;
  if (!second.done && !(await writePiece(res, second.value, false))) return;
  for (const piece of pieces) if (!(await writePiece(res, piece, true))) return;
  res.end();
}

/** Writes a piece, after a turn of the event loop if `turn`; false when the caller went away: the rest reaches no one. */
async function writePiece(res: Response, piece: Piece, turn: boolean): Promise<boolean> {
  // A list's chunks are read between its writes: the loop turns there.
  if (piece instanceof ChunkedList) return writeList(res, piece);
  if (turn) await nextTurn();
  if (res.destroyed) return false;
  res.write(piece);
  return true;
}

/** Writes a list's items a chunk at a time as they are read, as a JSON array; false when the caller went away. */
async function writeList(res: Response, list: ChunkedList): Promise<boolean> {
  let opened = false;
  for (let chunk = await list.next(); chunk !== null; chunk = await list.next()) {
    if (res.destroyed) return false;
    if (chunk.length === 0) continue;
    res.write((opened ? ',' : '[') + JSON.stringify(chunk).slice(1, -1));
    opened = true;
  }
  res.write(opened ? ']' : '[]');
  return true;
}
