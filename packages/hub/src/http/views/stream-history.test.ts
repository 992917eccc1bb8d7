import { TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { rowsRead } from '../../../../../test/support/plans.ts';
import { forgetFleet, writeFleet } from '../../../../../test/support/written-fleet.ts';
import { connect } from '../../database/connect.ts';
import { loadStream } from '../../reconcile/write-desired.ts';
import { readStreamView } from './stream.ts';

const suite = hubSuite({ config: testConfig(2) });

const GENERATIONS = 40;
const FLEET = 2000;

test('SPEC A2 A5: a stream with a long history is written and shown by its live intents and current generation alone, not by its superseded generations nor the fleet\'s other live intents', async () => {
  await new TestAgent(suite.hub, 'edge-1').register();
  for (let g = 1; g <= GENERATIONS; g++) {
    const body = { desired_state: 'running', spec: { command: 'sleep', args: [String(g)] }, placement: { nodes: ['edge-1'] } };
    expect((await suite.hub.call('PUT', '/api/v1/streams/hist', { token: TOKENS.operator, body })).status).toBe(200);
  }
  // The rest of a fleet in the middle of a rollout: many live intents and queued attempts of other streams.
  await writeFleet(suite.t.db, { prefix: 'fleet', size: FLEET, intentState: 'ambiguous', attemptState: 'queued' });

  // One connection, the statements prepared on it as a desired write and its answer prepare them.
  const database = connect(suite.t.url, { max: 1 });
  try {
    const loaded = await loadStream(database.db, 'hist');
    expect(loaded.stream?.generation).toBe(GENERATIONS);
    expect(loaded.live.map((i) => i.generation)).toEqual([GENERATIONS]);
    const view = await readStreamView({ ...suite.hub.context, database }, 'hist');
    expect(view.intents.map((i) => [i.node_id, i.generation])).toEqual([['edge-1', GENERATIONS]]);

    // The live intent, its queued attempt, the current generation's intent (the same one, found by both arms
    // of the view's read): a row or two each, where a read of the history goes through every generation and a
    // read of the fleet's live rows through every other node's.
    const reads: Array<[string, number]> = [];
    for (const name of ['desired_write_intents', 'desired_write_queued', 'desired_write_registered', 'stream_view_intents']) reads.push([name, await rowsRead(database.db, name, 'hist', ['intents', 'attempts'])]);
    expect(reads.filter(([, rows]) => rows < 1 || rows > 2)).toEqual([]);
  } finally {
    await database.close();
    await forgetFleet(suite.t.db, 'fleet');
  }
});
