import { sql, type Kysely } from 'kysely';
import { TestAgent } from './fleet.ts';
import { TOKENS, type TestHub } from './hub.ts';

/** Some of a fleet's life, written through a Hub: registrations of a new boot, reports, a desired write, labels. */
export async function fleetActivity(hub: Pick<TestHub, 'call'>, round: number): Promise<void> {
  for (const node of ['edge-1', 'edge-2']) {
    const agent = new TestAgent(hub, node, `${node}-boot-${round}`);
    await agent.register();
    await agent.report();
    await agent.report();
  }
  await hub.call('PUT', `/api/v1/streams/s-${round}`, { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1', 'edge-2'] } } });
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { round: String(round) } } });
}

/** The log's last position, once the Hub's workers have stopped appending (their passes follow the writes). */
export async function settledPosition(db: Kysely<any>): Promise<number> {
  const last = async () => Number((await sql<{ p: string }>`SELECT max(position) AS p FROM events`.execute(db)).rows[0]!.p);
  for (let before = -1; ; ) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await last();
    if (now === before) return now;
    before = now;
  }
}
