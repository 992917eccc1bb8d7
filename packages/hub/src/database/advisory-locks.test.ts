import { Writable } from 'node:stream';
import pg from 'pg';
import winston from 'winston';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { createLogger } from '../logger.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';

// Each of the Hub's one-key advisory locks guards one purpose. Two purposes once shared a key: an archive run
// (which may upload for minutes) held the key every pass and lease takes, shared, to read the global mode, so
// no attempt was queued or leased until the run ended; and boot reclassification waited, without a bound or a
// word, for any session holding its key (a Hub frozen mid-boot held every other Hub's start).

let t: TestDatabase;
const hubs: TestHub[] = [];
const holders: pg.Client[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  for (const h of hubs) await h.stop();
  for (const c of holders) await c.end();
  await t.drop();
});

/** Another session holding `key`, as another Hub's archive run or boot does: its backend's pid. */
async function hold(key: number, application: string): Promise<number> {
  const client = new pg.Client({ connectionString: t.url, application_name: application });
  await client.connect();
  holders.push(client);
  await client.query('SELECT pg_advisory_lock($1)', [key]);
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

test('every purpose has a key of its own', () => {
  const keys = Object.values(ADVISORY_LOCKS);
  expect(new Set(keys).size).toBe(keys.length);
});

test('C6 a boot waits at most its bound for a session holding the boot lock (a Hub frozen mid-boot), says which, then reclassifies', async () => {
  const pid = await hold(ADVISORY_LOCKS.boot, 'frozen-hub');
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = createLogger('info', false, [new winston.transports.Stream({ stream: sink })]);
  // Held for good: without the bound this start never ends, and the test's timeout fails it.
  const hub = await startTestHub(t.url, { config: testConfig(2, { mode: 'lifecycle' }), logger, bootLockWaitMs: 500 });
  hubs.push(hub);
  const message = (l: Record<string, unknown>) => String(l.message);
  expect(lines.find((l) => message(l).startsWith('waiting for another session'))).toMatchObject({ level: 'warn', holder_pid: pid, holder_application: 'frozen-hub' });
  expect(lines.find((l) => message(l).startsWith('boot reclassification runs without the lock'))).toMatchObject({ level: 'warn', holder_pid: pid });
  expect(lines.find((l) => message(l) === 'boot reclassification')).toMatchObject({ expired_leases: 0 });
  expect((await hub.call('GET', '/readyz', { token: null })).status).toBe(200);
}, 60_000);

test('C6 B3 an archive run holding its lock holds back no pass, lease, mode change or resync', async () => {
  await hold(ADVISORY_LOCKS.archive, 'archive-run');
  const hub = hubs[0]!;
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  const written = await hub.call('PUT', '/api/v1/streams/ingest', {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } },
  });
  expect(written.status).toBe(200);
  const attempts = await eventually(async () => {
    const got = (await agent.attempts(1)).filter((a) => a.stream_id === 'ingest');
    return got.length ? got : undefined;
  }, 20_000);
  expect(attempts[0]).toMatchObject({ stream_id: 'ingest', operation: 'job_start' });
  expect((await hub.call('PUT', '/api/v1/settings/reconciliation', { token: TOKENS.operator, body: { mode: 'observe' } })).status).toBe(200);
  expect(await hub.context.reconciler.resync()).not.toBeNull();
}, 60_000);
