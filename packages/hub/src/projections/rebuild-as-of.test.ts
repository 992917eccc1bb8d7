import { decideRegister, decideReplaceLabels, ok, type Labels, type NodeState } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { lockNode } from '../nodes/load-node.ts';
import { runCommand, type Command } from '../commands/pipeline.ts';
import { allProjections } from './all.ts';
import { dropSchema, rebuild } from './rebuild.ts';

// As-of reconstruction (issue 7, point 6): a rebuild that stops at a position or a time.

let t: TestDatabase;
/** The Hub's clock for the next command, in seconds after 12:00. */
let at = 0;
const time = (s: number) => new Date(Date.parse('2026-11-30T12:00:00.000Z') + s * 1000);
const actor = { principal: 'alice', role: 'operator' as const, source: 'api' as const, correlationId: 'corr-as-of' };
const positions: Record<string, number> = {};

async function run(name: string, seconds: number, command: Command<NodeState | null, null>): Promise<void> {
  at = seconds;
  const r = await runCommand({ db: t.db, boss: null, clock: { now: () => time(at) }, projections: allProjections }, actor, command);
  if (!r.ok) throw new Error(r.error.message);
  positions[name] = Number((await sql<{ p: string }>`SELECT max(position) p FROM events`.execute(t.db)).rows[0]!.p);
}

const register: Command<NodeState | null, null> = {
  name: 'RegisterNode',
  load: (trx) => lockNode(trx, 'n-1'),
  decide: (node) =>
    ok({ events: decideRegister(node, { node_id: 'n-1', boot_id: 'b', agent_version: '1', capabilities: [], data_address: null, control_address: null }), result: null }),
};
const label = (labels: Labels): Command<NodeState | null, null> => ({
  name: 'ReplaceLabels',
  load: (trx) => lockNode(trx, 'n-1'),
  decide: (node) => {
    const decided = decideReplaceLabels(node, 'n-1', labels);
    return decided.ok ? ok({ events: decided.value, result: null }) : decided;
  },
});

const labelsIn = async (schema: string) => (await sql<{ labels: Labels }>`SELECT labels FROM ${sql.id(schema, 'nodes')}`.execute(t.db)).rows[0]?.labels;

beforeAll(async () => {
  t = await createTestDatabase();
  await run('registered', 10, register);
  await run('v1', 20, label({ v: '1' }));
  // Decided with a clock reading earlier than v1's, appended after it: recorded_at is not ordered by position.
  await run('v2', 15, label({ v: '2' }));
  await run('v3', 30, label({ v: '3' }));
});
afterAll(() => t.drop());

test('until a position, the rebuild holds the tables as they stood after that event', async () => {
  const rebuilt = await rebuild(t.db, allProjections, { schema: 'asof_position', until: { position: positions.v1! } });
  try {
    expect(rebuilt.through).toBe(positions.v1);
    expect(await labelsIn('asof_position')).toEqual({ v: '1' });
    expect(await labelsIn('public')).toEqual({ v: '3' });
  } finally {
    await dropSchema(t.db, 'asof_position');
  }
});

test('until a time, the rebuild replays the log up to the first event recorded after it, never a later event alone', async () => {
  // v2 was recorded at 12:00:15 but decided on a state that held v1 (recorded at 12:00:20): as of 12:00:17 the
  // log's prefix ends before v1, so v2 is not applied either.
  const early = await rebuild(t.db, allProjections, { schema: 'asof_early', until: { time: time(17) } });
  const later = await rebuild(t.db, allProjections, { schema: 'asof_later', until: { time: time(20) } });
  const all = await rebuild(t.db, allProjections, { schema: 'asof_all', until: { time: time(60) } });
  try {
    expect(early.through).toBe(positions.registered);
    expect(await labelsIn('asof_early')).toEqual({});
    expect(later.through).toBe(positions.v2);
    expect(await labelsIn('asof_later')).toEqual({ v: '2' });
    expect(all.through).toBe(positions.v3);
    expect(await labelsIn('asof_all')).toEqual({ v: '3' });
  } finally {
    for (const s of ['asof_early', 'asof_later', 'asof_all']) await dropSchema(t.db, s);
  }
});
