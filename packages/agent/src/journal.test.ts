import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from './journal.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetplane-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('C6 an attempt started after a crash cut the last line short is still known as started: it never runs twice', () => {
  appendFileSync(join(dir, 'attempts.jsonl'), '{"attempt_id":"at_done","result":{"outcome":"succeeded"}}\n{"attempt_id":"at_old","res');
  new Journal(dir).begin('at_restart');
  const reopened = new Journal(dir);
  expect(reopened.entry('at_restart')).toEqual({ state: 'started' });
  expect(reopened.entry('at_done')).toMatchObject({ state: 'finished' });
  expect(reopened.entry('at_old')).toEqual({ state: 'new' });
  expect(readFileSync(join(dir, 'attempts.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
});
