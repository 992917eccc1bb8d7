import type { Clock } from '../../packages/hub/src/clock.ts';
import type { PipelineDeps } from '../../packages/hub/src/commands/pipeline.ts';
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
