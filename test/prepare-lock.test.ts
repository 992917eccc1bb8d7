import { once } from 'node:events';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import winston from 'winston';
import { ADVISORY_LOCKS } from '../packages/hub/src/database/advisory-locks.ts';
import { createLogger } from '../packages/hub/src/logger.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { startTestHub, type TestHub } from './support/hub.ts';
import { startProcess } from './support/process.ts';

// README, "Several Hubs": migrations run once, under an advisory lock. While another process holds it (a long
// migration by `fleetplane migrate`, another Hub preparing the database, or one frozen doing so), a Hub
// starting and `fleetplane migrate` wait for it. They used to wait without a word, the Hub not even answering
// /healthz: now each says, once, that it waits and for which session, so that an operator can find it.
let t: TestDatabase;
let holder: pg.Client | null = null;
let hub: TestHub | null = null;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await holder?.end();
  await hub?.stop();
  await t.drop();
});

/** Another session, holding the migrations' lock as a migration under way does: its backend's pid. */
async function holdTheLock(): Promise<number> {
  holder = new pg.Client({ connectionString: t.url, application_name: 'long-migration' });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.prepare]);
  return (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

async function release(): Promise<void> {
  await holder!.end();
  holder = null;
}

test('a Hub starting while another session holds the migrations lock says, once, which session it waits for, and starts once it is released', async () => {
  const pid = await holdTheLock();
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  let started = false;
  const starting = startTestHub(t.url, { logger: createLogger('warn', false, [new winston.transports.Stream({ stream: sink })]) }).then((h) => {
    started = true;
    return h;
  });
  const waiting = await eventually(async () => lines.find((l) => String(l.message).startsWith('waiting for the database lock')), 10_000);
  expect(waiting).toMatchObject({ level: 'warn', holder_pid: pid, holder_application: 'long-migration' });
  expect(started).toBe(false);

  await release();
  hub = await starting;
  expect(lines.filter((l) => String(l.message).startsWith('waiting for the database lock'))).toHaveLength(1);
  expect((await hub.call('GET', '/readyz', { token: null })).status).toBe(200);
}, 60_000);

test('`fleetplane migrate` while another session holds the migrations lock says which session it waits for, then finishes', async () => {
  const pid = await holdTheLock();
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const migrate = await startProcess(join(__dirname, '../packages/hub/src/cli/main.ts'), ['migrate'], { ...inherited, DATABASE_URL: t.url }, /waiting for the database lock.*\n/);
  expect(migrate.match[0]).toContain(`pid ${pid}`);
  expect(migrate.match[0]).toContain('long-migration');
  expect(migrate.child.exitCode).toBeNull();

  const exited = once(migrate.child, 'exit');
  await release();
  const [code] = await exited;
  expect(code).toBe(0);
  expect(migrate.output()).toContain('up to date');
}, 60_000);
