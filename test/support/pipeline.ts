import type { Clock } from '../../packages/hub/src/clock.ts';
import { runCommand, type Actor, type Command, type PipelineDeps } from '../../packages/hub/src/commands/pipeline.ts';
import { registerNode } from '../../packages/hub/src/nodes/register-node.ts';
import { startBoss, type QueueDefinition } from '../../packages/hub/src/jobs/boss.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface PipelineDatabase {
  t: TestDatabase;
  /** The Hub's projections and a job queue, on `t`: what commands run on. */
  deps: PipelineDeps;
  /** Stops the job queue, then proves and drops the database (TestDatabase.drop). */
  close(): Promise<void>;
}

/** A fresh test database with a job queue of `queues` whose failures fail the test. */
export async function pipelineDatabase(queues: readonly QueueDefinition[], clock: Clock): Promise<PipelineDatabase> {
  const t = await createTestDatabase();
  const boss = await startBoss(t.url, queues, {
    error: (e) => {
      throw e;
    },
    warning: () => {},
  });
  return {
    t,
    deps: { db: t.db, boss, clock, projections: allProjections },
    async close() {
      await boss.stop({ graceful: false });
      await t.drop();
    },
  };
}

/**
 * A pipeline database for the tests of the file that declares it, made before them and closed after them, on
 * a clock that moves a second forward at each reading from `start` (each command decides at a time of its
 * own). Its fields are set once the tests run.
 */
export function pipelineSuite(queues: readonly QueueDefinition[], start = '2026-11-30T12:00:00.000Z'): PipelineDatabase {
  let time = Date.parse(start);
  const suite = {} as PipelineDatabase;
  beforeAll(async () => {
    Object.assign(suite, await pipelineDatabase(queues, { now: () => new Date((time += 1000)) }));
  });
  afterAll(() => suite.close());
  return suite;
}

/** A node's agent, as the agent routes name it. */
export const agentActor = (node: string): Actor => ({ principal: `${node}-agent`, role: 'agent', source: 'agent', correlationId: `corr-${node}` });

/** Runs a command alone and answers its result: a refusal fails the test. */
export async function mustRun<S, R>(deps: PipelineDeps, actor: Actor, command: Command<S, R>): Promise<R> {
  const r = await runCommand(deps, actor, command);
  if (!r.ok) throw new Error(r.error.message);
  return r.value.result;
}

/** Registers `node` (boot `boot-1`) as its agent would. */
export const registerAgent = (deps: PipelineDeps, node: string): Promise<null> =>
  mustRun(deps, agentActor(node), registerNode({ node_id: node, boot_id: 'boot-1', agent_version: null, capabilities: [], data_address: null, control_address: null }));

/**
 * Sends the first of `items` and waits for its answer, then sends the rest in one turn of the event loop: on a
 * pipeline of one lane, a command alone and then a batch of the others (commands arriving in one turn share a
 * transaction, commands/group-commit.ts). Answers in the order of `items`.
 */
export async function oneThenTogether<T, R>(items: readonly T[], send: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const first = await send(items[0]!, 0);
  return [first, ...(await Promise.all(items.slice(1).map((item, i) => send(item, i + 1))))];
}
