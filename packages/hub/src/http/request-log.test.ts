import { Writable } from 'node:stream';
import winston from 'winston';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../test/support/hub.ts';

// One line per request: writes and every failure at info, a fleet's routine traffic and reads answered at debug
// (and answered 503 while the database is away: test/database-outage.test.ts).
let t: TestDatabase;
let hub: TestHub;
const lines: { level: string; route: string; status: number }[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk));
      if (line.message === 'request') lines.push({ level: line.level, route: line.route, status: line.status });
      done();
    },
  });
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
  hub = await startTestHub(t.url, { logger });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const logged = (route: string) => lines.filter((l) => l.route === route).map((l) => [l.level, l.status]);

test('an agent\'s accepted registration and reports log at debug; a refused report at info', async () => {
  const agent = new TestAgent(hub, 'edge-1');
  await agent.register();
  expect((await agent.report()).status).toBe(202);
  const refused = await hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent1, body: { node_id: 'edge-1' } });
  expect(refused.status).toBe(400);
  await hub.call('GET', '/healthz', { token: null });
  expect(logged('/api/v1/agent/register')).toEqual([['debug', 200]]);
  expect(logged('/api/v1/agent/reports')).toEqual([
    ['debug', 202],
    ['info', 400],
  ]);
  expect(logged('/healthz')).toEqual([['debug', 200]]);
});

test('an operator\'s reads answered log at debug (the console reloads every 15 s, a request per 100 nodes); writes and refusals at info', async () => {
  await hub.call('GET', '/api/v1/nodes');
  await hub.call('GET', '/api/v1/nodes', { token: TOKENS.agent1 });
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { tier: 'edge' } } });
  expect(logged('/api/v1/nodes')).toEqual([
    ['debug', 200],
    ['info', 403],
  ]);
  expect(logged('/api/v1/nodes/:id/labels')).toEqual([['info', 200]]);
});
