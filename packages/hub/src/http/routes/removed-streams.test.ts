import { sql } from 'kysely';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { rowsFetchedBy } from '../../../../../test/support/plans.ts';
import { liveStreamIds } from './streams.ts';

// K5 a year of deleted streams: a removed stream keeps its row for good, so a fleet that deletes a stream per
// job or release keeps ever more of them. Listing streams (the console reloads its page every 15 s) and the
// drift view read the live ones, not every stream ever removed; they read them all, in id order, and a page
// took 0.3-0.4 s at 200,000 removed streams.

const suite = hubSuite({ config: testConfig(2) });
const REMOVED = 5000;
const desired = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } };

test('K5 a page of streams and the drift view read the live streams, not the removed ones before them', async () => {
  for (const id of ['live-1', 'live-2']) expect((await suite.hub.call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body: desired })).status).toBe(200);
  // Removed streams sorted before the live ones, as a year of removals would leave them (written straight into
  // the table: the log has no events for them, and they are taken out before the suite rebuilds the tables).
  await sql`INSERT INTO streams (stream_id, generation, desired_state, spec, placement, created_at, updated_at, deletion_requested_at, removed_at)
    SELECT 'gone-' || lpad(n::text, 5, '0'), 2, 'stopped', spec, placement, now(), now(), now(), now()
    FROM streams, generate_series(1, ${REMOVED}) AS n WHERE stream_id = 'live-1'`.execute(suite.t.db);
  await sql`ANALYZE streams`.execute(suite.t.db);
  try {
    const page = await rowsFetchedBy(suite.t.db, 'streams', (trx) => liveStreamIds(trx, undefined, 101));
    expect(page).toEqual({ result: ['live-1', 'live-2'], rows: 2 });
    const drift = await rowsFetchedBy(suite.t.db, 'streams', async (trx) => (await sql`SELECT * FROM drift`.execute(trx)).rows.length);
    expect(drift.rows).toBeLessThan(10);
    expect((await suite.hub.call('GET', '/api/v1/streams')).body.items.map((s: { stream_id: string }) => s.stream_id)).toEqual(['live-1', 'live-2']);
  } finally {
    await sql`DELETE FROM streams WHERE stream_id LIKE 'gone-%'`.execute(suite.t.db);
  }
});
