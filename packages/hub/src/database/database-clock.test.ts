import { Writable } from 'node:stream';
import { sql } from 'kysely';
import winston from 'winston';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually } from '../../../../test/support/fleet.ts';
import { createLogger } from '../logger.ts';
import { startDatabaseClock } from './database-clock.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const databaseNow = async () => (await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(t.db)).rows[0]!.now.getTime();

function logged() {
  const lines: Array<{ level: string; message: string; host_clock_offset_ms?: number }> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger('info', false, [new winston.transports.Stream({ stream: sink })]) };
}

test("the Hub's clock is the database's whatever its host's says, and a step of the host's clock moves it not at all", async () => {
  let stepMs = 0;
  const host = { now: () => new Date(Date.now() + stepMs) };
  const { lines, logger } = logged();
  const offsets: number[] = [];
  // No measurement after the first: what carries the clock on is the monotonic clock, not the host's.
  const clock = await startDatabaseClock(t.pool, host, { logger, everyMs: 3_600_000, onMeasured: (ms) => offsets.push(ms) });
  try {
    expect(Math.abs(clock.now().getTime() - (await databaseNow()))).toBeLessThan(250);
    stepMs = 5 * 60_000;
    expect(Math.abs(clock.now().getTime() - (await databaseNow()))).toBeLessThan(250);
    stepMs = -5 * 60_000;
    expect(Math.abs(clock.now().getTime() - (await databaseNow()))).toBeLessThan(250);
    expect(offsets).toHaveLength(1);
    expect(lines).toEqual([]);
  } finally {
    clock.stop();
  }
});

test('a host clock off the database\'s by more than a second is a warn line and the offset measured, once; back within, an info line', async () => {
  let stepMs = 90_000;
  const host = { now: () => new Date(Date.now() + stepMs) };
  const { lines, logger } = logged();
  const clock = await startDatabaseClock(t.pool, host, { logger, everyMs: 100 });
  try {
    expect(Math.abs(clock.offsetMs() - 90_000)).toBeLessThan(250);
    expect(Math.abs(clock.now().getTime() - (await databaseNow()))).toBeLessThan(250);
    await new Promise((r) => setTimeout(r, 500));
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    expect(Math.abs(lines[0]!.host_clock_offset_ms! - 90_000)).toBeLessThan(250);
    stepMs = 0;
    await eventually(async () => (lines.length === 2 ? true : undefined));
    expect(lines[1]).toMatchObject({ level: 'info', message: expect.stringMatching(/back within a second/) });
    expect(Math.abs(clock.offsetMs())).toBeLessThan(250);
  } finally {
    clock.stop();
  }
});
