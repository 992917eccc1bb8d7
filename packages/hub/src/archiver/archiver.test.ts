import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { archiveStream } from '@fleetplane/core';
import { sql } from 'kysely';
import winston from 'winston';
import { archivedHistoryProblems } from '../../../../test/support/archive.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { TestS3Server } from '../../../../test/support/s3.ts';
import { useSmallSegments } from '../../../../test/support/segments.ts';
import { openDestination, parseDestination } from '../archive/destination-url.ts';
import type { Destination } from '../archive/destination.ts';
import { listSegments } from '../event-store/segments.ts';

// Issue 19, the archive: a Hub whose log is made of small segments (20 positions) and kept hot for an hour
// archives its closed segments once their newest event is older than that (its clock is moved on), through
// its live archiver job, to a directory and to an S3 bucket; while the archive is unreachable, commands and
// reports are answered, /metrics and a warning say so, and archiving resumes when it is back. Each test has a
// database, a Hub and an archive of its own, and ends with the proof `fleetplane verify --archive` makes.
const SEGMENT = 20;
const HOUR = 3_600_000;

/** A clock that runs with the real one, `offsetMs` ahead: a test moves it on to make history old. */
class MovableClock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

let scratch: string;
let s3: TestS3Server;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fleetplane-archiver-'));
  s3 = await TestS3Server.start(scratch);
});
afterAll(async () => {
  await s3.close();
  await rm(scratch, { recursive: true, force: true });
});

interface Archive {
  /** The archive's location as log.archive has it. */
  url: string;
  /** Makes the archive unreachable, and reachable again. */
  away: () => Promise<void>;
  back: () => Promise<void>;
}

let archives = 0;
const kinds: Array<[string, () => Archive]> = [
  [
    'a directory',
    () => {
      const path = join(scratch, `archive-${++archives}`);
      return {
        url: path,
        // An unmounted share: the path is no directory any more.
        away: async () => {
          // The share as mounted, whether or not the archiver has written to it yet.
          await mkdir(path, { recursive: true });
          await rename(path, `${path}-unmounted`);
          await writeFile(path, 'not a directory');
        },
        back: async () => {
          await rm(path);
          await rename(`${path}-unmounted`, path);
        },
      };
    },
  ],
  ['an S3 bucket (local S3-compatible server)', () => ({ url: s3.url(`hub/log-${++archives}`), away: () => s3.pause(), back: () => s3.resume() })],
];

describe.each(kinds)('the archiver, to %s', (_, newArchive) => {
  let t: TestDatabase;
  let hub: TestHub;
  let archive: Archive;
  let destination: Destination;
  let clock: MovableClock;
  let warnings: Array<{ message: string; cause?: string }>;
  let agents: TestAgent[];
  let running: boolean;

  beforeEach(async () => {
    t = await createTestDatabase();
    await useSmallSegments(t.db, SEGMENT, 5);
    archive = newArchive();
    destination = openDestination(parseDestination(archive.url));
    clock = new MovableClock();
    warnings = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        const line = JSON.parse(String(chunk));
        if (line.level === 'warn') warnings.push(line);
        done();
      },
    });
    hub = await startTestHub(t.url, {
      clock,
      config: testConfig(3, {}, {}, { hot_retention: '1h', archive: archive.url, archive_every: '1s' }),
      segmentsEveryMs: 50,
      // Room ahead for a hundred events: appends never outrun the segments added every 50 ms.
      segmentBounds: { minEvents: SEGMENT, maxEvents: SEGMENT, ahead: 5 },
      logger: winston.createLogger({ level: 'info', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] }),
    });
    running = true;
    agents = ['edge-1', 'edge-2', 'edge-3'].map((n) => new TestAgent(hub, n));
    for (const a of agents) expect((await a.register()).status).toBe(200);
  }, 60_000);
  afterEach(async () => {
    if (running) await hub.stop();
    await t.drop();
  }, 60_000);

  /** Reports and operators' writes: about `rounds` × 4 events. */
  async function activity(rounds: number): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      for (const a of agents) expect((await a.report()).status).toBe(202);
      const label = await hub.call('PUT', `/api/v1/nodes/edge-${(i % 3) + 1}/labels`, { token: TOKENS.operator, body: { labels: { round: String(i) } } });
      expect(label.status).toBe(200);
    }
  }

  const metric = async (series: string) => {
    const text = (await hub.call('GET', '/metrics', { token: null })).body as string;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const archivedSegments = async () =>
    (await sql<{ v: number }>`SELECT coalesce((SELECT stream_version FROM stream_heads WHERE stream_id = ${archiveStream}), 0) AS v`.execute(t.db)).rows[0]!.v;
  /** Archiving has nothing left to do: no segment is due. */
  const caughtUp = () => eventually(async () => ((await metric('fleetplane_log_segments{state="archiving"}')) === 0 ? true : undefined), 60_000);
  /** The Hub stopped, the log and its archive as `fleetplane verify --archive` proves them. */
  async function expectVerified(): Promise<void> {
    await hub.stop();
    running = false;
    expect(await archivedHistoryProblems(t.db)).toEqual([]);
  }

  test('issue 19: closed segments stay hot until their newest event is older than log.hot_retention, then leave the database for verified files', async () => {
    await activity(16);
    // Kept hot: the retention is an hour.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await archivedSegments()).toBe(0);
    expect(await metric('fleetplane_log_segments{state="closed"}')).toBeGreaterThanOrEqual(2);
    const hotBefore = (await metric('fleetplane_log_hot_bytes'))!;

    clock.offsetMs = 2 * HOUR;
    expect(await metric('fleetplane_log_oldest_event_age_seconds')).toBeGreaterThan(HOUR / 1000);
    // New history fills a segment of its own: the last one written before is no longer the newest.
    await activity(5);
    await eventually(async () => ((await archivedSegments()) >= 2 ? true : undefined), 60_000);
    await caughtUp();
    const segments = await listSegments(t.db);
    const archived = await archivedSegments();
    // Every closed segment of the old history left, oldest first; the hot log now begins after them.
    expect(segments[0]!.from).toBeGreaterThan(1);
    expect(await metric('fleetplane_log_hot_bytes')).toBeLessThan(hotBefore);
    // What stays is not due: the oldest hot segment's newest event is within the hour (the segment written
    // across the clock's move keeps its older events hot until then).
    const newest = await t.db.selectFrom('events').select('recorded_at').where('position', '<', segments[0]!.to).orderBy('position', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(newest.recorded_at.getTime()).toBeGreaterThan(clock.now().getTime() - HOUR);
    expect((await destination.list('segments/')).length).toBe(archived);
    expect((await destination.list('checkpoints/')).length).toBe(archived);
    expect(await metric('fleetplane_log_archive_failures_total')).toBe(0);

    // The log goes on from the archived chains.
    await activity(3);
    await expectVerified();
  }, 180_000);

  test('issue 19: while the archive is unreachable, commands and reports are answered, /metrics and a warning say so; archiving resumes when it is back', async () => {
    await activity(12);
    await archive.away();
    try {
      clock.offsetMs = 2 * HOUR;
      // Nothing waits on the archive: the history written now makes the segments before it due.
      await activity(3);
      await eventually(async () => ((await metric('fleetplane_log_archive_failures_total'))! >= 2 ? true : undefined), 60_000);
      // The hot log grows past its retention, and says so.
      expect(await metric('fleetplane_log_segments{state="archiving"}')).toBeGreaterThanOrEqual(1);
      expect(await metric('fleetplane_log_oldest_event_age_seconds')).toBeGreaterThan(HOUR / 1000);
      expect(await archivedSegments()).toBe(0);
      const warning = warnings.find((w) => w.message === 'archiving the log failed; trying again at the next run: the archive is unreachable');
      // The run's first touch of the archive looks for a segment file already there (archiver/another-history.ts).
      expect(warning?.cause).toMatch(new RegExp(`^archive ${destination.url.replace(/[/.]/g, '\\$&')}: cannot look up segments/`));
      await activity(3);
      const stream = await hub.call('PUT', '/api/v1/streams/while-away', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1'] } } });
      expect(stream.status).toBeLessThan(300);
    } finally {
      await archive.back();
    }
    await caughtUp();
    expect(await archivedSegments()).toBeGreaterThanOrEqual(2);
    await expectVerified();
  }, 180_000);
});
