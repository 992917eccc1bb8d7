import { sql } from 'kysely';
import { settledPosition } from '../../../../test/support/activity.ts';
import { TestAgent } from '../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../test/support/hub.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { allProjections } from './all.ts';
import { dropSchema, ownedTables, rebuild } from './rebuild.ts';

// A replay carries a run of reports from page to page and applies it once (projections/runs.ts): whatever the
// page size, and wherever an as-of replay stops, the tables are those that applying every event in turn gives.
const suite = hubSuite({ config: testConfig(3) });

/** Every owned table in `schema`, as JSON rows in key order. */
async function tables(schema: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, keys] of ownedTables(allProjections)) {
    const order = sql.join(keys.map((k) => sql.id(k)));
    out[table] = (await sql<{ row: unknown }>`SELECT to_jsonb(t) AS row FROM ${sql.id(schema, table)} t ORDER BY ${order}`.execute(suite.t.db)).rows.map((r) => r.row);
  }
  return out;
}

async function rebuilt(schema: string, options: Parameters<typeof rebuild>[2]): Promise<Record<string, unknown[]>> {
  await rebuild(suite.t.db, allProjections, { schema, ...options });
  try {
    return await tables(schema);
  } finally {
    await dropSchema(suite.t.db, schema);
  }
}

test('J3: a replay in pages of any size, carrying runs of interleaved reports across pages, gives the live tables; so does an as-of replay stopping inside a run', async () => {
  const agents = ['edge-1', 'edge-2', 'edge-3'].map((n) => new TestAgent(suite.hub, n));
  for (const a of agents) await a.register();
  const report = async (a: TestAgent) => expect((await a.report()).status).toBe(202);
  const interleaved = async (rounds: number, change: (a: TestAgent, round: number) => boolean) => {
    for (let round = 0; round < rounds; round++) {
      for (const [i, a] of agents.entries()) {
        if (change(a, round)) a.streams.set(`s-${i}`, { stream_id: `s-${i}`, generation: round + 1, state: round % 2 ? 'running' : 'stopped' });
        await report(a);
      }
    }
  };
  // Changed and repeated reports of three nodes, in turns: a node's last changed report is followed by repeats.
  await interleaved(6, (a, round) => (round + a.nodeId.length) % 3 === 0 || round === 0);
  // A new boot in the middle of the run: the reports after it take the new boot.
  agents[1]!.restart('edge-2-boot-2');
  await agents[1]!.register();
  await interleaved(3, () => false);
  // An operator's event between two runs of reports.
  expect((await suite.hub.call('PUT', '/api/v1/nodes/edge-3/labels', { token: TOKENS.operator, body: { labels: { zone: 'a' } } })).status).toBe(200);
  const inside = await settledPosition(suite.t.db);
  await interleaved(4, (a, round) => round === 2 && a.nodeId === 'edge-1');

  const live = await tables('public');
  const whole = await rebuilt('runs_whole', { pageSize: 10_000 });
  expect(whole).toEqual(live);
  for (const pageSize of [1, 2, 5]) expect(await rebuilt(`runs_${pageSize}`, { pageSize })).toEqual(live);
  // Stopping two events into a run of reports (at a page's end, with pages of 1 and 3) gives what the whole log up to there gives.
  const asOf = await rebuilt('runs_as_of_whole', { pageSize: 10_000, until: { position: inside + 2 } });
  expect(asOf.nodes).not.toEqual(live.nodes);
  for (const pageSize of [1, 3]) expect(await rebuilt(`runs_as_of_${pageSize}`, { pageSize, until: { position: inside + 2 } })).toEqual(asOf);
});
