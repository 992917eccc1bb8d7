import { once } from 'node:events';
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
 * How long a large answer waits for its caller to take what was written before it is cut. A caller that stops
 * reading would otherwise have the rest of its answer held in the Hub's memory until the connection's idle
 * timeout (server-limits.ts), and one whose list is read as it is written would hold its transaction too:
 * shorter than the server's `idle_in_transaction_session_timeout` (database/connect.ts).
 */
export const SEND_STALL_MS = 5_000;

/** How an answer's writing ended: written whole, its caller gone, or cut after its caller stalled (SEND_STALL_MS). */
export type Sent = 'sent' | 'gone' | 'stalled';

/**
 * Answers `body` as JSON. A body holding a large array (a rollout's 10,000 targets) is written a slice at a time,
 * each in a turn of its own, so that other requests (the fleet's reports) are served between slices instead of
 * waiting for the whole answer to be serialised; a body holding a ChunkedList (the unpaged drift) is written a
 * chunk at a time as the chunks are read, its first read before anything is sent, so that a read failing at
 * once is answered as any failure. Either goes out chunked, without a Content-Length, each piece once the
 * caller took the ones before (the socket drained), cut when it takes nothing for `stallMs`; any other body is
 * sent whole. Every ChunkedList of the body is closed once written, or once the answer is given up (HEAD, the
 * caller gone or stalled, a failure: after the status was sent, the response can only be cut).
 */
export async function sendJson(res: Response, status: number, body: unknown, stallMs = SEND_STALL_MS): Promise<Sent> {
  const pieces = jsonPieces(body);
  let whole = false;
  let lists: readonly ChunkedList[] | null = null;
  const listsOf = () => (lists ??= chunkedLists(body));
  try {
    const first = pieces.next();
    const second = pieces.next();
    res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
    // Most answers (every agent's): one piece, and no list read in chunks to look for.
    whole = second.done === true && !(first.value instanceof ChunkedList);
    if (whole) {
      res.send(first.value ?? '');
      return 'sent';
    }
    if (res.req.method === 'HEAD') {
      res.end();
      return 'sent';
    }
    return await sendInPieces(new Writer(res, stallMs), first.value!, second, pieces, listsOf());
  } finally {
    if (!whole) await Promise.all(listsOf().map((list) => list.close()));
  }
}

async function sendInPieces(out: Writer, first: Piece, second: IteratorResult<Piece>, rest: Iterator<Piece>, lists: readonly ChunkedList[]): Promise<Sent> {
  // Nothing is sent before: a failure here is answered as any other (the app's error handler sets its own status).
  for (const list of lists) await list.start();
  // The first two pieces go at once; each later one in a turn of its own.
  let written = (await writePiece(out, first, false)) && (second.done === true || (await writePiece(out, second.value, false)));
  for (let next = rest.next(); written && !next.done; next = rest.next()) written = await writePiece(out, next.value, true);
  if (!out.stopped) out.res.end();
  return out.stalled ? 'stalled' : out.stopped ? 'gone' : 'sent';
}

/** Writes a piece, after a turn of the event loop if `turn`; false once the answer stopped: the rest reaches no one. */
async function writePiece(out: Writer, piece: Piece, turn: boolean): Promise<boolean> {
  // A list's chunks are read between its writes: the loop turns there.
  if (piece instanceof ChunkedList) return writeList(out, piece);
  if (turn) await nextTurn();
  return out.write(piece);
}

/** Writes a list's items a chunk at a time as they are read, as a JSON array; false once the answer stopped. */
async function writeList(out: Writer, list: ChunkedList): Promise<boolean> {
  let opened = false;
  for (let chunk = await list.next(); chunk !== null; chunk = await list.next()) {
    if (chunk.length === 0) continue;
    if (!(await out.write((opened ? ',' : '[') + JSON.stringify(chunk).slice(1, -1)))) return false;
    opened = true;
  }
  return out.write(opened ? ']' : '[]');
}

/** An answer's writes, each once the caller took the last: stopped when the caller went away or stalled (then cut). */
class Writer {
  readonly res: Response;
  readonly #stallMs: number;
  stalled = false;

  constructor(res: Response, stallMs: number) {
    this.res = res;
    this.#stallMs = stallMs;
  }

  get stopped(): boolean {
    return this.stalled || this.res.destroyed;
  }

  /** Writes `text` once what was written before is taken; false when the answer stopped instead. */
  async write(text: string): Promise<boolean> {
    if (this.res.writableNeedDrain && !(await this.#drained())) return false;
    if (this.stopped) return false;
    this.res.write(text);
    return true;
  }

  /** Whether the caller took what was written within the stall's time; a caller that did not is cut. */
  async #drained(): Promise<boolean> {
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(), this.#stallMs);
    try {
      await Promise.race([once(this.res, 'drain', { signal: waited.signal }), once(this.res, 'close', { signal: waited.signal })]);
    } catch {
      // Aborted: the time ran out.
    } finally {
      clearTimeout(timer);
      waited.abort();
    }
    if (this.res.destroyed) return false;
    if (!this.res.writableNeedDrain) return true;
    this.stalled = true;
    this.res.destroy();
    return false;
  }
}
