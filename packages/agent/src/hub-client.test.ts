import { sql } from 'kysely';
import { takeAttempts, TestAgent } from '../../../test/support/fleet.ts';
import { agentToken, testConfig, TOKENS } from '../../../test/support/hub.ts';
import { hubSuite } from '../../../test/support/hub-suite.ts';
import { HubClient } from './hub-client.ts';

// An agent's free text comes from processes and the OS (stderr, error messages): text the Hub refuses (NUL,
// lone surrogates, over 4096 characters) must not cost the agent its report or its result.
const suite = hubSuite({ config: testConfig(1, { mode: 'lifecycle' }) });

const odd = `stderr:\u0000 half \ud83d, then ${'x'.repeat(5000)}`;

test("defect 3: an agent's result and report with a process's odd text are delivered, made storable", async () => {
  const agent = new TestAgent(suite.hub, 'edge-1');
  await agent.register();
  await suite.hub.call('PUT', '/api/v1/streams/odd', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'x' }, placement: { nodes: ['edge-1'] } } });
  const [attempt] = await takeAttempts(agent, 'odd');
  const client = new HubClient(suite.hub.url, agentToken('edge-1'));
  await client.result(attempt.attempt_id, attempt.generation, { outcome: 'failed', failure_class: 'temporary', code: 'exit', message: odd, mutation: null });
  const report = agent.nextReport();
  const answer = await client.report({ ...report, streams: [{ stream_id: 'odd', generation: 1, state: 'failed', last_action_id: null, error: odd }] });
  expect(answer).toEqual({ accepted: true });
  const { rows } = await sql<{ message: string }>`
    SELECT data->>'message' AS message FROM events WHERE type = 'AttemptFailed' UNION ALL
    SELECT data->'streams'->0->>4 FROM events WHERE type = 'NodeReported' AND data->'streams'->0 IS NOT NULL`.execute(suite.t.db);
  expect(rows).toHaveLength(2);
  for (const { message } of rows) {
    expect(message).toHaveLength(4096);
    expect(message.startsWith('stderr:\ufffd half \ufffd, then xxx')).toBe(true);
    expect(message.endsWith('x…')).toBe(true);
  }
});
