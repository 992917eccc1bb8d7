import pg from 'pg';
import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, waitingForLocks, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { EXIT } from './exit.ts';
import { OVERLOADED_TRIES } from './hub-client.ts';

// A request the Hub turns away for its load (429 `overloaded`, Retry-After: admission control) ran nothing:
// the CLI sends it again after the wait the Hub asks for, as kubectl does, and says the refusal only when
// every try was refused. The operators' class here holds one request and queues none; the one in flight is
// held on a lock a session of the test's own takes.

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2, {}, { operator_max_in_flight: 1, operator_max_queued: 0 }) });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const viewer = (...args: string[]) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer });

async function refusedTotal(): Promise<number> {
  const text = (await hub.call('GET', '/metrics', { token: null })).body as string;
  const line = text.split('\n').find((l) => l.startsWith('fleetplane_http_requests_refused_total{class="operator",reason="queue_full"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** The operators' one place taken by a read waiting on a lock (on a table no gauge of /metrics reads), until `release`. */
async function placeTaken(): Promise<{ release(): Promise<number> }> {
  const session = new pg.Client({ connectionString: t.url });
  await session.connect();
  await session.query('BEGIN');
  await session.query('LOCK TABLE config_versions IN ACCESS EXCLUSIVE MODE');
  const held = hub.call('GET', '/api/v1/config-versions', { token: TOKENS.viewer });
  await waitingForLocks(t.db, 1);
  return {
    async release() {
      await session.query('COMMIT');
      await session.end();
      return (await held).status;
    },
  };
}

test('a command refused 429 overloaded is sent again after Retry-After and succeeds once the Hub has a place', async () => {
  const before = await refusedTotal();
  const place = await placeTaken();
  const listed = viewer('nodes');
  // Refused at least once while the place is taken; the CLI waits (1 s and jitter) and tries again.
  for (let waited = 0; (await refusedTotal()) === before; waited += 50) {
    if (waited > 10_000) throw new Error('the CLI was never refused');
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(await place.release()).toBe(200);
  const result = await listed;
  expect({ code: result.code, err: result.err }).toEqual({ code: EXIT.ok, err: '' });
  expect(result.out).toMatch(/^NODE\s+LIVENESS/);
}, 30_000);

test('a command refused on every try exits 3 naming the refusal, after OVERLOADED_TRIES tries', async () => {
  const before = await refusedTotal();
  const place = await placeTaken();
  try {
    const result = await viewer('nodes');
    expect(result.code).toBe(EXIT.refused);
    expect(result.err).toMatch(/overloaded/);
    expect((await refusedTotal()) - before).toBe(OVERLOADED_TRIES);
  } finally {
    expect(await place.release()).toBe(200);
  }
}, 30_000);
