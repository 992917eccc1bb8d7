import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveStream } from '@fleetplane/core';
import { sql } from 'kysely';
import { listSegments } from '../packages/hub/src/event-store/segments.ts';
import { fleetActivity, settledPosition } from './support/activity.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { caller, testConfig } from './support/hub.ts';
import { fleetplaneProcess, startConfiguredHub, type HubProcess } from './support/process.ts';
import { projectionTables } from './support/projection-tables.ts';
import { closeCurrentSegment } from './support/segments.ts';

// Issue 19, end to end as an operator meets it: a Hub process whose archiver job runs every second and whose
// hot log may hold 1 kB (log.hot_max_bytes: a closed segment leaves at once, whatever its age) archives the
// log's first segment to a directory once the log has moved on past it; then `fleetplane verify`, `verify
// --archive` and `replay --until` a position inside the archive, each a process of its own, prove and replay it.
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-log-archive-'));
  const config = testConfig(2, {}, {}, { hot_max_bytes: '1kB', archive_every: '1s', archive: join(dir, 'archive') }).file;
  hub = await startConfiguredHub({ databaseUrl: t.url, dir, config });
}, 60_000);
afterAll(async () => {
  await hub?.stop('SIGKILL');
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => fleetplaneProcess(args, { DATABASE_URL: t.url, FLEETPLANE_DATA_DIR: join(dir, 'cli') });
const archivedSegments = async () =>
  (await sql<{ v: number }>`SELECT coalesce((SELECT stream_version FROM stream_heads WHERE stream_id = ${archiveStream}), 0) AS v`.execute(t.db)).rows[0]!.v;

test('issue 19: the Hub archives a closed segment by itself; verify, verify --archive and replay --until a position inside the archive work on it from the CLI', async () => {
  const api = caller(hub.url);
  await fleetActivity(api, 1);
  await settledPosition(t.db);
  // A point inside the first segment, and the tables as of it, replayed from the hot log while it is there.
  const point = (await sql<{ position: number }>`SELECT position FROM events WHERE type = 'NodeLabelsReplaced' ORDER BY position LIMIT 1`.execute(t.db)).rows[0]!.position;
  const before = await cli('--json', 'replay', '--into', 'before_archive', '--until', String(point));
  expect(before).toMatchObject({ code: 0, err: '' });
  expect(JSON.parse(before.out)).toMatchObject({ source: 'log', start: null, through: point });
  expect(await archivedSegments()).toBe(0);

  // The first segment fills (its positions run out) and the log goes on in the next: the Hub's job archives it.
  const first = (await listSegments(t.db))[0]!;
  await closeCurrentSegment(t.db);
  await fleetActivity(api, 2);
  await eventually(async () => ((await archivedSegments()) === 1 && (await listSegments(t.db))[0]!.from === first.to ? true : undefined), 30_000);
  await settledPosition(t.db);
  const last = first.to - 1;
  const padded = (p: number) => String(p).padStart(19, '0');
  expect(await readdir(join(dir, 'archive', 'segments'))).toEqual([`${padded(1)}-${padded(last)}.fseg`]);
  expect(await readdir(join(dir, 'archive', 'checkpoints'))).toEqual([`${padded(last)}.fckp`]);

  const verify = await cli('verify');
  expect(verify).toEqual({ code: 0, out: `hash chain: ok\ncheckpoint: ok (position ${last})\nprojections: ok\n`, err: '' });
  const verifyArchive = await cli('verify', '--archive');
  expect(verifyArchive).toEqual({
    code: 0,
    out: `hash chain: ok\ncheckpoint: ok (position ${last})\nprojections: ok\narchive: ok (1 segment(s), positions 1-${last})\n`,
    err: '',
  });

  const replay = await cli('--json', 'replay', '--into', 'from_archive', '--until', String(point));
  expect(replay).toMatchObject({ code: 0, err: '' });
  expect(JSON.parse(replay.out)).toMatchObject({ schema: 'from_archive', source: 'archive', start: null, through: point });
  const replayed = await projectionTables(t.db, 'from_archive');
  expect(replayed).toEqual(await projectionTables(t.db, 'before_archive'));
  // As of that point edge-1 carries the first round's label, which the live tables have since replaced.
  expect(replayed.nodes).toContainEqual(expect.objectContaining({ node_id: 'edge-1', labels: { round: '1' } }));
  expect((await projectionTables(t.db)).nodes).toContainEqual(expect.objectContaining({ node_id: 'edge-1', labels: { round: '2' } }));

  expect(await hub.stop('SIGTERM')).toBe(0);
}, 120_000);
