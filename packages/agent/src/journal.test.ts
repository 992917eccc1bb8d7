import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { succeeded } from './executors/executor.ts';
import { Journal } from './journal.ts';

const DAY = 24 * 60 * 60 * 1000;
const T0 = new Date('2026-12-01T00:00:00.000Z');
const after = (ms: number) => () => new Date(T0.getTime() + ms);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetplane-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = () => readFileSync(join(dir, 'attempts.jsonl'), 'utf8').split('\n').filter(Boolean);

test('C6 an attempt started after a crash cut the last line short is still known as started: it never runs twice', () => {
  appendFileSync(join(dir, 'attempts.jsonl'), `{"attempt_id":"at_done","at":"${T0.toISOString()}","result":{"outcome":"succeeded"}}\n{"attempt_id":"at_old","res`);
  new Journal(dir, { now: after(0) }).begin('at_restart');
  const reopened = new Journal(dir, { now: after(0) });
  expect(reopened.entry('at_restart')).toEqual({ state: 'started' });
  expect(reopened.entry('at_done')).toMatchObject({ state: 'finished' });
  expect(reopened.entry('at_old')).toEqual({ state: 'new' });
  expect(lines()).toHaveLength(3);
});

test('C6 an attempt is forgotten 7 days after its last line: opening drops it, and the file keeps one line per attempt kept', () => {
  const first = new Journal(dir, { now: after(0) });
  first.begin('at_old_finished');
  first.finish('at_old_finished', succeeded);
  first.begin('at_old_started');
  const second = new Journal(dir, { now: after(2 * DAY) });
  second.begin('at_recent');
  second.finish('at_recent', succeeded);

  const reopened = new Journal(dir, { now: after(8 * DAY) });
  expect(reopened.entry('at_old_finished')).toEqual({ state: 'new' });
  expect(reopened.entry('at_old_started')).toEqual({ state: 'new' });
  expect(reopened.entry('at_recent')).toEqual({ state: 'finished', result: succeeded });
  expect(lines().map((line) => JSON.parse(line))).toEqual([{ attempt_id: 'at_recent', at: after(2 * DAY)().toISOString(), result: succeeded }]);
  expect(existsSync(join(dir, 'attempts.jsonl.tmp'))).toBe(false);
});

test('C6 a journal written before lines had a time keeps its attempts, rewritten with the time of opening: they age out from then', () => {
  appendFileSync(join(dir, 'attempts.jsonl'), `{"attempt_id":"at_done","result":${JSON.stringify(succeeded)}}\n{"attempt_id":"at_started"}\n{"attempt_id":"at_cut","res`);
  const opened = new Journal(dir, { now: after(0) });
  expect(opened.entry('at_done')).toEqual({ state: 'finished', result: succeeded });
  expect(opened.entry('at_started')).toEqual({ state: 'started' });
  expect(opened.entry('at_cut')).toEqual({ state: 'new' });
  expect(lines().map((line) => JSON.parse(line))).toEqual([
    { attempt_id: 'at_done', at: T0.toISOString(), result: succeeded },
    { attempt_id: 'at_started', at: T0.toISOString() },
  ]);

  expect(new Journal(dir, { now: after(6 * DAY) }).entry('at_started')).toEqual({ state: 'started' });
  expect(new Journal(dir, { now: after(8 * DAY) }).entry('at_started')).toEqual({ state: 'new' });
  expect(lines()).toEqual([]);
});

test('C6 a running journal compacts every compactEvery lines: attempts older than keepMs leave the file and the map', () => {
  let now = after(0);
  const journal = new Journal(dir, { now: () => now(), compactEvery: 4 });
  journal.begin('at_a');
  journal.finish('at_a', succeeded);
  journal.begin('at_b');
  now = after(8 * DAY);
  journal.finish('at_b', succeeded);
  expect(lines()).toHaveLength(4); // not yet past compactEvery

  journal.begin('at_c');
  expect(journal.entry('at_a')).toEqual({ state: 'new' });
  expect(journal.entry('at_b')).toEqual({ state: 'finished', result: succeeded });
  expect(journal.entry('at_c')).toEqual({ state: 'started' });
  expect(lines().map((line) => JSON.parse(line).attempt_id)).toEqual(['at_b', 'at_c']);

  const reopened = new Journal(dir, { now: () => now() });
  expect(reopened.entry('at_a')).toEqual({ state: 'new' });
  expect(reopened.entry('at_b')).toEqual({ state: 'finished', result: succeeded });
  expect(reopened.entry('at_c')).toEqual({ state: 'started' });
});

test('C6 a journal larger than one read chunk is read whole, a character split between chunks included', () => {
  const journal = new Journal(dir, { now: after(0) });
  // Three-byte characters: with these lines one 64 KiB chunk ends inside one.
  const ids = Array.from({ length: 2_000 }, (_, i) => `at_${'€'.repeat(40)}${i}`);
  for (const id of ids) journal.finish(id, succeeded);
  const reopened = new Journal(dir, { now: after(0) });
  for (const id of ids) expect(reopened.entry(id)).toEqual({ state: 'finished', result: succeeded });
});

test('a rewrite a crash cut short leaves attempts.jsonl.tmp, which opening removes; the journal keeps its attempts', () => {
  new Journal(dir, { now: after(0) }).begin('at_kept');
  appendFileSync(join(dir, 'attempts.jsonl.tmp'), '{"attempt_id":"at_kept","at":"');
  const reopened = new Journal(dir, { now: after(0) });
  expect(existsSync(join(dir, 'attempts.jsonl.tmp'))).toBe(false);
  expect(reopened.entry('at_kept')).toEqual({ state: 'started' });
});
