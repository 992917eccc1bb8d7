import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ChunkedList } from './chunked-list.ts';
import { jsonPieces, SLICE_ITEMS, sendJson, type Sent } from './json-answer.ts';

// A large answer (a rollout's 10,000 targets, the unpaged drift) is serialised a slice at a time, each in a
// turn of its own, so that the fleet's reports are served between its slices.

const item = (i: number) => ({ node_id: `edge-${i}`, batch: i % 7, state: i % 3 ? 'waiting' : 'converged', failure: null, note: 'a "quoted" \u2028 line' });
const many = (n: number) => Array.from({ length: n }, (_, i) => item(i));

describe('jsonPieces', () => {
  const shapes: Array<[string, unknown]> = [
    ['a small object', { items: many(3), next_cursor: null }],
    ['a large array', many(1_201)],
    ['an array of exactly one slice', many(SLICE_ITEMS)],
    ['a large array as a field, fields before and after', { rollout_id: 'ro_1', counts: { waiting: 1 }, targets: many(1_000), updated_at: '2026-12-07T00:00:00.000Z' }],
    ['a large array as the only field', { items: many(501) }],
    ['two large arrays', { a: many(700), b: many(600), c: 1 }],
    ['fields and items JSON.stringify leaves out or writes as null', { skipped: undefined, f: () => 1, items: [...many(600), undefined, () => 2], last: undefined }],
    ['a large array further down, in one piece', { page: { items: many(1_000) } }],
    ['a value with its own toJSON', { at: new Date(0), items: many(2) }],
    ['scalars', 'text'],
    ['null', null],
  ];
  test.each(shapes)('its pieces join to exactly what JSON.stringify writes: %s', (_name, value) => {
    expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
  });

  test('a list read in chunks, whole or as a field, is a piece of its own, where its items go', () => {
    const list = new ChunkedList((async function* () {})(), async () => {});
    expect([...jsonPieces({ rollout_id: 'ro_1', targets: list, after: 1 })]).toEqual(['{"rollout_id":"ro_1","targets":', list, ',"after":1}']);
    expect([...jsonPieces(list)]).toEqual([list]);
    expect(() => JSON.stringify({ items: list })).toThrow('a list read in chunks is written by sendJson');
  });

  test('a large array, whole or as a field, comes in slices of SLICE_ITEMS items; anything else in one piece', () => {
    expect([...jsonPieces(many(1_201))]).toHaveLength(3);
    expect([...jsonPieces({ rollout_id: 'ro_1', targets: many(1_000), after: 1 })]).toHaveLength(3);
    expect([...jsonPieces({ a: many(700), b: many(600) })]).toHaveLength(5);
    expect([...jsonPieces(many(SLICE_ITEMS))]).toHaveLength(1);
    expect([...jsonPieces({ page: { items: many(1_000) } })]).toHaveLength(1);
  });
});

describe('sendJson', () => {
  let server: http.Server;
  let base = '';
  /** Turns of the event loop that ran while the last answer was written. */
  let turns = 0;
  /** Settles when the last answer's writing ended, with how it ended. */
  let written: Promise<Sent | void> = Promise.resolve();

  /** How the last list read in chunks went: chunks read, and how its read ended (failed or not), if it did. */
  let listRead: { chunks: number; ended: boolean[]; finallyRan: boolean; sentAtRead: number[] } = { chunks: 0, ended: [], finallyRan: false, sentAtRead: [] };
  /** Settles with the error sendJson failed with, or null. */
  let sent: Promise<unknown> = Promise.resolve(null);
  /** The next /listed answer's `sent`, handed over once its route runs. */
  let answered = Promise.withResolvers<Promise<unknown>>();
  const nextAnswer = () => (answered = Promise.withResolvers<Promise<unknown>>()).promise.then((p) => p);
  /** Whether the answer's headers had gone when sendJson failed. */
  let headersSentAtFailure: boolean | null = null;

  /** A list of `chunks` chunks of SLICE_ITEMS items, its read failing at chunk `failAt` (0: none); `sent`: the answer's bytes sent so far. */
  function list(chunks: number, failAt: number, sent: () => number): ChunkedList {
    listRead = { chunks: 0, ended: [], finallyRan: false, sentAtRead: [] };
    async function* read() {
      try {
        for (let c = 1; c <= chunks; c++) {
          await new Promise((r) => setImmediate(r));
          listRead.sentAtRead.push(sent());
          if (c === failAt) throw new Error('the read failed');
          listRead.chunks = c;
          yield many(SLICE_ITEMS).map((it, i) => ({ ...it, node_id: `edge-${(c - 1) * SLICE_ITEMS + i}` }));
        }
      } finally {
        listRead.finallyRan = true;
      }
    }
    return new ChunkedList(read(), async (failed) => void listRead.ended.push(failed));
  }
  const listed = (chunks: number) => Array.from({ length: chunks * SLICE_ITEMS }, (_, i) => ({ ...item(i % SLICE_ITEMS), node_id: `edge-${i}` }));

  beforeAll(async () => {
    const app = express();
    app.get('/listed/:chunks/:failAt', async (req, res) => {
      headersSentAtFailure = null;
      const stallMs = req.query.stall ? Number(req.query.stall) : undefined;
      sent = sendJson(res, 200, { before: 1, items: list(Number(req.params.chunks), Number(req.params.failAt), () => res.socket?.bytesWritten ?? 0), after: null }, stallMs).then(
        (outcome) => outcome,
        (e: unknown) => {
          headersSentAtFailure = res.headersSent;
          if (res.headersSent) res.destroy();
          else res.status(503).json({ code: 'read_failed' });
          return e;
        },
      );
      answered.resolve(sent);
      await sent;
    });
    app.get('/items/:n', async (req, res) => {
      let writing = true;
      turns = 0;
      const count = () => {
        if (!writing) return;
        turns += 1;
        setImmediate(count);
      };
      setImmediate(count);
      written = sendJson(res, 200, { items: many(Number(req.params.n)), next_cursor: null }).finally(() => {
        writing = false;
      });
      await written;
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('a large answer is written a slice a turn: other work runs between its slices, and the caller reads the same JSON', async () => {
    const res = await fetch(`${base}/items/5000`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.text()).toBe(JSON.stringify({ items: many(5_000), next_cursor: null }));
    // Ten slices: the loop turned between each and the next.
    expect(turns).toBeGreaterThanOrEqual(9);
  });

  test('a small answer is sent whole, with its length, in one turn', async () => {
    const res = await fetch(`${base}/items/20`);
    const text = await res.text();
    expect(text).toBe(JSON.stringify({ items: many(20), next_cursor: null }));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(turns).toBe(0);
  });

  test('HEAD of a large answer sends its headers and no body', async () => {
    const res = await fetch(`${base}/items/5000`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  test('a caller gone mid-answer stops the writing: the rest is not serialised', async () => {
    const controller = new AbortController();
    const res = await fetch(`${base}/items/200000`, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    await written;
    // 400 slices had the caller stayed.
    expect(turns).toBeLessThan(100);
  });

  test('a list read in chunks is written as its chunks are read, the read ended once, not failed; no items answer []', async () => {
    const res = await fetch(`${base}/listed/5/0`);
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.text()).toBe(JSON.stringify({ before: 1, items: listed(5), after: null }));
    expect(await sent).toBe('sent');
    expect(listRead).toMatchObject({ chunks: 5, ended: [false], finallyRan: true });
    // Each chunk after the first was read once the one before it was sent.
    const sentAt = listRead.sentAtRead;
    for (let c = 2; c < sentAt.length; c++) expect(sentAt[c]).toBeGreaterThan(sentAt[c - 1]! + SLICE_ITEMS * 50);
    expect(await (await fetch(`${base}/listed/0/0`)).text()).toBe('{"before":1,"items":[],"after":null}');
  });

  test('a list whose first read fails fails before anything is sent: the failure is answered as any other', async () => {
    const res = await fetch(`${base}/listed/5/1`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ code: 'read_failed' });
    expect((await sent) as Error).toHaveProperty('message', 'the read failed');
    expect(headersSentAtFailure).toBe(false);
    expect(listRead.ended).toEqual([true]);
  });

  test('a list whose read fails once the answer began cuts the answer: the caller never gets a whole JSON', async () => {
    const res = await fetch(`${base}/listed/5/3`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect((await sent) as Error).toHaveProperty('message', 'the read failed');
    expect(headersSentAtFailure).toBe(true);
    expect(listRead).toMatchObject({ chunks: 2, ended: [true], finallyRan: true });
  });

  test('a list given up is ended without reading the rest: HEAD, and a caller gone mid-answer', async () => {
    const head = await fetch(`${base}/listed/5/0`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    await sent;
    expect(listRead).toMatchObject({ chunks: 0, ended: [false], finallyRan: false });
    const controller = new AbortController();
    const res = await fetch(`${base}/listed/400/0`, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    expect(await sent).toBe('gone');
    expect(listRead.chunks).toBeLessThan(100);
    expect(listRead.ended).toEqual([false]);
    expect(listRead.finallyRan).toBe(true);
  });

  /** A GET of `path` on a socket of its own, read only while `reading()` says so; answers what arrived once the server ended it. */
  function pacedGet(path: string, reading: () => boolean): { received: Promise<string> } {
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: hub\r\nConnection: close\r\n\r\n`);
    const pace = setInterval(() => (reading() ? socket.resume() : socket.pause()), 20);
    const received = new Promise<string>((resolve) => {
      socket.on('close', () => {
        clearInterval(pace);
        resolve(Buffer.concat(chunks).toString('latin1'));
      });
      socket.on('error', () => {});
    });
    return { received };
  }
  // Four hundred chunks of 500 items, about 20 MB: more than the sockets' buffers on either side hold.
  const LARGE = 400;

  test('a caller that stops reading a large answer is cut once it took nothing for the stall time: the rest is neither read nor held', async () => {
    let reading = true;
    const outcome = nextAnswer();
    const started = Date.now();
    const { received } = pacedGet(`/listed/${LARGE}/0?stall=300`, () => reading);
    await new Promise((r) => setTimeout(r, 50));
    reading = false;
    expect(await outcome).toBe('stalled');
    const took = Date.now() - started;
    expect(listRead.chunks).toBeLessThan(LARGE);
    expect(listRead.ended).toEqual([false]);
    reading = true;
    const text = await received;
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    // The chunked body never ends: no last, empty chunk.
    expect(text.endsWith('0\r\n\r\n')).toBe(false);
    // Cut no sooner than the stall time after the caller stopped, and long before the connection's idle timeout
    // (120 s) would have cut it (a generous bound: the machine may be busy).
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(10_000);
  });

  test('a caller that reads slowly, pausing for less than the stall time, gets the whole answer', async () => {
    let tick = 0;
    const outcome = nextAnswer();
    const { received } = pacedGet(`/listed/${LARGE}/0?stall=1000`, () => ++tick % 4 === 0);
    expect(await outcome).toBe('sent');
    const text = await received;
    expect(text.endsWith('0\r\n\r\n')).toBe(true);
    expect(listRead).toMatchObject({ chunks: LARGE, ended: [false] });
  });
});
